// SPDX-License-Identifier: GPL-3.0-or-later

/// HTTP header fields in the order they were received or added, looked up case-insensitively.
///
/// Names compare by ASCII case folding only (RFC 9110 §5.1); a name may repeat, and `subscript`
/// returns the first value while `values(for:)` returns all of them.
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    /// One header line.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of the field called `name` (any case), or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the field called `name` (any case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field called `name` (any case) by one field with `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field called `name` (any case).
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Whether two field names are equal ignoring ASCII case.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        let a = a.utf8
        let b = b.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }
}
