// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials

/// Why a payload does not fit its model: the field's path and what was wrong.
package struct PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    package let field: String
    package let reason: String
    package var description: String { "field \(field): \(reason)" }
}

/// Reads typed fields out of one JSON object, the way Apple's `Codable` models do: an absent
/// field or `null` is nil, a present field of the wrong type is an error, unknown fields are
/// ignored. The App Store Server API client reads its response bodies with it too.
package struct PayloadReader {
    let members: JSONObject
    /// The dotted path of this object inside the payload, empty at the top.
    let path: String

    package init(_ members: JSONObject, path: String = "") {
        self.members = members
        self.path = path
    }

    private func name(_ key: StaticString) -> String { path.isEmpty ? key.description : "\(path).\(key)" }

    private func mismatch(_ key: StaticString, expected: String, got value: JSONValue) -> PayloadError {
        PayloadError(field: name(key), reason: "expected \(expected), got \(value.typeName)")
    }

    private func value(_ key: StaticString) -> JSONValue? {
        switch members.value(named: key) {
        case nil, .null?: nil
        case let value?: value
        }
    }

    package func string(_ key: StaticString) throws(PayloadError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw mismatch(key, expected: "a string", got: value) }
        return text
    }

    package func int64(_ key: StaticString) throws(PayloadError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard case .integer(let number) = value else { throw mismatch(key, expected: "an integer", got: value) }
        return number
    }

    package func int32(_ key: StaticString) throws(PayloadError) -> Int32? {
        guard let number = try int64(key) else { return nil }
        guard let narrow = Int32(exactly: number) else {
            throw PayloadError(field: name(key), reason: "\(number) is out of range")
        }
        return narrow
    }

    package func bool(_ key: StaticString) throws(PayloadError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(key, expected: "a boolean", got: value) }
        return flag
    }

    /// The dates a payload may carry, in milliseconds since 1970: 0000-01-01T00:00:00Z to
    /// 9999-12-31T23:59:59.999Z.
    ///
    /// No App Store payload comes near either end (Xcode's earliest is in year 0), and it keeps
    /// every date inside what `AppleDate.wholeSeconds`/`wholeMilliseconds` and an X.509 time can
    /// hold, so OpenSSL can compare it with a certificate's validity.
    static let dateRange: ClosedRange<Double> = -62_167_219_200_000...253_402_300_799_999

    /// A date: milliseconds since 1970 as a JSON number, possibly fractional.
    package func date(_ key: StaticString) throws(PayloadError) -> AppleDate? {
        guard let value = value(key) else { return nil }
        let milliseconds: Double
        switch value {
        case .integer(let number): milliseconds = Double(number)
        case .double(let number): milliseconds = number
        default: throw mismatch(key, expected: "a date in milliseconds", got: value)
        }
        guard PayloadReader.dateRange.contains(milliseconds) else {
            throw PayloadError(field: name(key), reason: "\(milliseconds) ms is not a date the App Store writes")
        }
        return AppleDate(milliseconds: milliseconds)
    }

    /// A UUID in its canonical text form; kept as given, validated for shape.
    package func uuid(_ key: StaticString) throws(PayloadError) -> String? {
        guard let text = try string(key) else { return nil }
        guard Self.isUUID(text) else {
            throw PayloadError(field: name(key), reason: "\"\(text.prefix(40))\" is not a UUID")
        }
        return text
    }

    /// Whether `text` is a UUID in its 8-4-4-4-12 hexadecimal form. (Foundation's
    /// `UUID(uuidString:)` parses with `sscanf`, which costs more than the rest of a field.)
    package static func isUUID(_ text: String) -> Bool {
        var index = 0
        for byte in text.utf8 {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                let isHex =
                    (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
                guard isHex else { return false }
            }
            index += 1
            if index > 36 { return false }
        }
        return index == 36
    }

    /// A currency code in ISO 4217's shape: three uppercase ASCII letters. Reports group and
    /// print by it, and `Money` looks its minor unit up by it, so anything else is refused
    /// rather than stored.
    func currency(_ key: StaticString) throws(PayloadError) -> String? {
        guard let text = try string(key) else { return nil }
        guard JWSTransactionDecodedPayload.isCurrencyCode(text) else {
            throw PayloadError(
                field: name(key), reason: "\"\(text.prefix(40))\" is not an ISO 4217 code of three capital letters")
        }
        return text
    }

    package func strings(_ key: StaticString) throws(PayloadError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw mismatch(key, expected: "an array", got: value) }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else {
                throw mismatch(key, expected: "an array of strings", got: element)
            }
            result.append(text)
        }
        return result
    }

    package func object(_ key: StaticString) throws(PayloadError) -> PayloadReader? {
        guard let value = value(key) else { return nil }
        guard case .object(let nested) = value else { throw mismatch(key, expected: "an object", got: value) }
        return PayloadReader(nested, path: name(key))
    }

    /// An array of objects, each read at the path `key[index]`.
    package func objects(_ key: StaticString) throws(PayloadError) -> [PayloadReader]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw mismatch(key, expected: "an array", got: value) }
        var readers: [PayloadReader] = []
        readers.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(let nested) = element else {
                throw mismatch(key, expected: "an array of objects", got: element)
            }
            readers.append(PayloadReader(nested, path: "\(name(key))[\(index)]"))
        }
        return readers
    }
}
