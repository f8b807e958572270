// SPDX-License-Identifier: GPL-3.0-or-later

/// Writes compact JSON with members in the order given, so output shapes are stable and match
/// the documented contracts field by field.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// A writer that appends to `bytes` (several values one after another, e.g. JSON lines).
    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Appends a line feed, ending a JSON line.
    public mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The JSON written so far, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Writes an object; `body` adds its members.
    public mutating func object(_ body: (inout ObjectWriter) -> Void) {
        var object = ObjectWriter(bytes: bytes)
        bytes = []
        object.open()
        body(&object)
        object.close()
        bytes = object.bytes
    }

    /// Members of an object being written.
    public struct ObjectWriter {
        var bytes: [UInt8]
        private var first = true

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func open() { bytes.append(UInt8(ascii: "{")) }
        mutating func close() { bytes.append(UInt8(ascii: "}")) }

        private mutating func key(_ name: String) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }

        public mutating func field(_ name: String, _ value: String?) {
            key(name)
            if let value { JSONWriter.appendString(value, to: &bytes) } else { appendNull() }
        }

        public mutating func field(_ name: String, _ value: Int64?) {
            key(name)
            if let value { bytes.append(contentsOf: String(value).utf8) } else { appendNull() }
        }

        public mutating func field(_ name: String, _ value: Int?) {
            field(name, value.map(Int64.init))
        }

        public mutating func field(_ name: String, _ value: Bool?) {
            key(name)
            if let value { bytes.append(contentsOf: (value ? "true" : "false").utf8) } else { appendNull() }
        }

        /// A number that may have a fraction (dates from Xcode); integral values print without one.
        public mutating func field(_ name: String, _ value: Double?) {
            key(name)
            guard let value, value.isFinite else { return appendNull() }
            if value == value.rounded(), abs(value) < 9.0e15 {
                bytes.append(contentsOf: String(Int64(value)).utf8)
            } else {
                bytes.append(contentsOf: "\(value)".utf8)
            }
        }

        /// Adds a member only when `value` is not nil.
        public mutating func optionalField(_ name: String, _ value: String?) {
            if let value { field(name, value) }
        }

        /// Adds a member only when `value` is not nil.
        public mutating func optionalField(_ name: String, _ value: Int64?) {
            if let value { field(name, value) }
        }

        public mutating func object(_ name: String, _ body: (inout ObjectWriter) -> Void) {
            key(name)
            var nested = ObjectWriter(bytes: bytes)
            bytes = []
            nested.open()
            body(&nested)
            nested.close()
            bytes = nested.bytes
        }

        public mutating func array<Element>(
            _ name: String, _ elements: some Sequence<Element>, _ body: (inout ObjectWriter, Element) -> Void
        ) {
            key(name)
            bytes.append(UInt8(ascii: "["))
            var firstElement = true
            for element in elements {
                if !firstElement { bytes.append(UInt8(ascii: ",")) }
                firstElement = false
                var nested = ObjectWriter(bytes: bytes)
                bytes = []
                nested.open()
                body(&nested, element)
                nested.close()
                bytes = nested.bytes
            }
            bytes.append(UInt8(ascii: "]"))
        }

        package mutating func stringArray(_ name: String, _ values: [String]) {
            key(name)
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }

        private mutating func appendNull() { bytes.append(contentsOf: "null".utf8) }
    }

    /// Appends `text` as a JSON string literal, escaping what RFC 8259 requires (quote,
    /// backslash, the C0 controls) and every other scalar `PrintableText` finds unsafe (DEL,
    /// the C1 controls, U+2028 and U+2029, which JavaScript before ES2019 ends a line at, and
    /// the bidirectional controls): JSON lines are read on terminals too.
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = text.utf8
        // Most strings (ids, codes, dates) need no escaping: copy them whole.
        let plain =
            utf8.withContiguousStorageIfAvailable { buffer in
                for byte in buffer
                where PrintableText.mayStartUnsafe(byte) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    return false
                }
                return true
            } ?? false
        if plain {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        let hexDigits = Array("0123456789abcdef".utf8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case "\\": bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case "\n": bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case "\r": bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case "\t": bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case _ where PrintableText.isUnsafe(scalar):
                // Every unsafe scalar is in the Basic Multilingual Plane: four hex digits.
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
                for shift in [12, 8, 4, 0] { bytes.append(hexDigits[Int(scalar.value >> UInt32(shift) & 0xf)]) }
            default:
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
