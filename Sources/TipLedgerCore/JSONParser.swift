// SPDX-License-Identifier: GPL-3.0-or-later

/// A strict JSON reader (RFC 8259) for signed payloads.
///
/// Strict because its input is attacker-controlled: exactly one value with only JSON whitespace
/// around it, no trailing commas, no leading zeros, valid UTF-8, valid escapes (surrogates must
/// pair), no control characters in strings, no duplicate member names (two readers could
/// otherwise see different values in one signed payload), and nesting at most `maximumDepth` deep.
public struct JSONParser: ~Copyable {
    /// Deepest nesting of arrays and objects accepted; App Store payloads use 3.
    package static let maximumDepth = 32

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses `bytes` as one JSON value.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Parses `bytes` as one JSON value.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try parse(buffer) }
    }

    /// Parses `text` as one JSON value.
    public static func parse(_ text: some StringProtocol) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, reason: reason)
    }

    /// Whether `byte` is JSON whitespace (space, tab, LF, CR): what may surround a JSON value,
    /// and a token or an input line too.
    @inline(__always)
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d
    }

    private mutating func skipWhitespace() {
        while index < bytes.count && Self.isWhitespace(bytes[index]) { index += 1 }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("unexpected character")
        }
        index += count
        return value
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth)") }
        index += 1
        skipWhitespace()
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        var members = JSONObject.Builder()
        if leaves(at: UInt8(ascii: "}")) { return .object(members.object) }
        repeat {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name")
            }
            let nameOffset = index
            let (name, key) = try parseStringAndKey()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            guard members.append(name, key: key, try parseValue()) else {
                // The name comes from the input: quoted no longer than a UUID, as errors echo it.
                let shown = name.count > 40 ? name.prefix(40) + "…" : Substring(name)
                throw JSONSyntaxError(offset: nameOffset, reason: "duplicate member \"\(shown)\"")
            }
        } while try continues(before: UInt8(ascii: "}"), otherwise: "expected ',' or '}'")
        return .object(members.object)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        if leaves(at: UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try parseValue())
        } while try continues(before: UInt8(ascii: "]"), otherwise: "expected ',' or ']'")
        return .array(elements)
    }

    /// Steps past `closer` when it comes next, leaving the object or array: whether it did.
    private mutating func leaves(at closer: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == closer else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// After a member or element: true past a ',' (another one follows), false past `closer`.
    private mutating func continues(before closer: UInt8, otherwise expected: String) throws(JSONSyntaxError)
        -> Bool
    {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            return true
        }
        guard leaves(at: closer) else { throw error(expected) }
        return false
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        try parseStringAndKey().text
    }

    /// Reads a string: its text, and the `NameKey` a member name is found by.
    private mutating func parseStringAndKey() throws(JSONSyntaxError) -> (text: String, key: NameKey) {
        index += 1  // the opening quote
        let start = index
        // Fast path: no escapes, so the bytes between the quotes are the string. Every byte is
        // or-ed into `high`, so the end of the scan also tells whether the text is ASCII.
        var end = start
        var high: UInt8 = 0
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            high |= byte
            end += 1
        }
        index = end
        guard end < bytes.count, bytes[end] != UInt8(ascii: "\\") else { return try parseEscapedString(from: start) }
        guard bytes[end] == UInt8(ascii: "\"") else { throw error("control character in a string") }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        let text = high < 0x80 ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        guard let text else { throw JSONSyntaxError(offset: start, reason: "invalid UTF-8 in a string") }
        index += 1
        return (text, NameKey(utf8: slice, isASCII: high < 0x80))
    }

    /// Reads the rest of a string from the first escape or the end of the input, the string
    /// having started at `start`.
    private mutating func parseEscapedString(from start: Int) throws(JSONSyntaxError) -> (text: String, key: NameKey) {
        var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let decoded = scalars.withUnsafeBufferPointer { scalars in
                    String(validating: scalars, as: UTF8.self).map {
                        ($0, NameKey(utf8: scalars, isASCII: NameKey.isASCII(scalars)))
                    }
                }
                guard let decoded else { throw JSONSyntaxError(offset: start, reason: "invalid UTF-8 in a string") }
                index += 1
                return decoded
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of input") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0c)
                case UInt8(ascii: "n"): scalars.append(0x0a)
                case UInt8(ascii: "r"): scalars.append(0x0d)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try parseUnicodeEscape())
                default: throw error("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw error("control character in a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// Reads the hex digits after `\u` (and a second `\uXXXX` for a surrogate pair) and returns
    /// the scalar's UTF-8 bytes.
    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> [UInt8] {
        var value = try parseHex4()
        if (0xd800...0xdbff).contains(value) {
            guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate") }
            index += 2
            let low = try parseHex4()
            guard (0xdc00...0xdfff).contains(low) else { throw error("unpaired surrogate") }
            value = 0x10000 + ((value - 0xd800) << 10) + (low - 0xdc00)
        } else if (0xdc00...0xdfff).contains(value) {
            throw error("unpaired surrogate")
        }
        guard let scalar = Unicode.Scalar(value) else { throw error("invalid \\u escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && isDigit(bytes[index]) { throw error("leading zero in a number") }
        } else {
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        let digits = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let integer = Self.int64(digits) { return .integer(integer) }
        guard let double = Double(String(decoding: digits, as: UTF8.self)), double.isFinite else {
            throw JSONSyntaxError(offset: start, reason: "number out of range")
        }
        return .double(double)
    }

    /// The value of `text`, an optional `-` and decimal digits, when it fits in an `Int64`.
    ///
    /// Read straight from the bytes: nearly every number in a payload is an integer, and making
    /// a `String` of it for `Int64.init` cost more than reading it.
    private static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = text.first == UInt8(ascii: "-")
        // Accumulated as a negative number, whose range includes `Int64.min`.
        var value: Int64 = 0
        for byte in text.dropFirst(negative ? 1 : 0) {
            let (shifted, overflowShifting) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowAdding) = shifted.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowShifting && !overflowAdding else { return nil }
            value = next
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
