// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation
public import TipLedgerCore

/// Foundation's `JSONSerialization`, the reference the project's JSON reader is compared with.
///
/// The project's reader is deliberately stricter; `isDeliberateDifference` names each place, so
/// that any other disagreement is a bug in one of the two.
public enum FoundationJSON {
    /// What `JSONSerialization` reads from `bytes` (any top-level value), or nil when it refuses.
    public static func value(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
    }

    /// Whether refusing `bytes` with `error`, where Foundation accepts them, is one of the
    /// project's deliberate differences:
    /// - a duplicate member name (Foundation keeps the last, so two readers of one signed
    ///   payload could see different values), and with it a number out of range that a later
    ///   duplicate replaces (Foundation refuses such a number, but for that);
    /// - nesting deeper than `JSONParser.maximumDepth` (Foundation allows 512);
    /// - a trailing comma before `]` or `}` (Foundation allows one);
    /// - text Foundation reads as another encoding, from a byte order mark or NUL bytes at the
    ///   start (RFC 8259 section 8.1: JSON exchanged between systems is UTF-8, without a mark).
    public static func isDeliberateDifference(_ error: JSONSyntaxError, in bytes: [UInt8]) -> Bool {
        let deliberate = ["duplicate member", "nesting deeper than", "number out of range"]
        if deliberate.contains(where: error.reason.hasPrefix) { return true }
        if error.offset < bytes.count,
            bytes[error.offset] == UInt8(ascii: "]") || bytes[error.offset] == UInt8(ascii: "}"),
            bytes[..<error.offset].last(where: { !isWhitespace($0) }) == UInt8(ascii: ",")
        {
            return true
        }
        let marks: [[UInt8]] = [[0xef, 0xbb, 0xbf], [0xfe, 0xff], [0xff, 0xfe]]
        return marks.contains { bytes.starts(with: $0) } || bytes.prefix(2).contains(0)
    }

    /// Whether Foundation's `other` is the same JSON as `value`: the same strings and names
    /// (as `isSameText` compares them), the same structure, and the same numbers. Foundation reads a number of
    /// many digits, and -2^63, as an `NSDecimalNumber`, whose `doubleValue` is not always the
    /// nearest double: a decimal is compared through its exact digits (to 15 significant
    /// digits when it is not an integer), any other number to the last bit.
    public static func matches(_ value: JSONValue, _ other: Any) -> Bool {
        switch value {
        case .null: return other is NSNull
        case .bool(let flag): return (other as? Bool) == flag
        case .string(let text): return (other as? String).map { isSameText(text, $0) } ?? false
        case .integer(let integer):
            if let decimal = other as? NSDecimalNumber {
                return decimal.compare(NSDecimalNumber(value: integer)) == .orderedSame
            }
            guard let number = other as? NSNumber else { return false }
            return number.int64Value == integer && number.doubleValue == Double(integer)
        case .double(let double):
            if let decimal = other as? NSDecimalNumber {
                guard let exact = Double(decimal.stringValue) else { return false }
                return exact == double || abs(exact - double) <= abs(double) * 1e-15
            }
            return (other as? NSNumber)?.doubleValue == double
        case .array(let elements):
            guard let others = other as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { matches($0, $1) }
        case .object(let members):
            guard let others = other as? [String: Any] else { return false }
            // Names are compared as texts are (`isSameText`); two that differ by U+FEFF alone
            // may be one to Foundation.
            var byName: [String: Any] = [:]
            for (name, value) in others { byName[withoutZeroWidthNoBreakSpaces(name)] = value }
            var ours: [String: Int] = [:]
            for member in members { ours[withoutZeroWidthNoBreakSpaces(member.name), default: 0] += 1 }
            guard byName.count == ours.count else { return false }
            return members.allSatisfy { member in
                let name = withoutZeroWidthNoBreakSpaces(member.name)
                guard let other = byName[name] else { return false }
                // Of names that are one to Foundation, it keeps the last value.
                return ours[name] != 1 || matches(member.value, other)
            }
        }
    }

    /// Whether Foundation's `theirs` is the string `ours` as Foundation reads it. Foundation
    /// decodes the text between escapes piece by piece and drops a U+FEFF (ZERO WIDTH NO-BREAK
    /// SPACE) at the start of each piece, taking it for a byte order mark; the project keeps
    /// every character, as RFC 8259 says. So the two are compared without U+FEFF.
    public static func isSameText(_ ours: String, _ theirs: String) -> Bool {
        ours == theirs || withoutZeroWidthNoBreakSpaces(ours) == withoutZeroWidthNoBreakSpaces(theirs)
    }

    private static func withoutZeroWidthNoBreakSpaces(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.lazy.filter { $0 != "\u{FEFF}" })
        return String(scalars)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d
    }
}
