// SPDX-License-Identifier: GPL-3.0-or-later

/// A request's header fields: names compared ignoring ASCII case (RFC 9110 section 5.1).
public typealias HTTPHeaders = NameValueList<FieldNames>

/// A request's query parameters, percent-decoded: names are case-sensitive. A parameter
/// without `=` (`?verbose`) has the empty value.
public typealias HTTPQuery = NameValueList<ParameterNames>

/// Names with values in the order they were received or added, a name possibly repeated:
/// `subscript` returns the first value of a name, `values(for:)` all of them. How names compare
/// is the `Names` rule's.
public struct NameValueList<Names: NameComparison>: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    /// One name with its value: a header line, or a `name=value` parameter.
    public struct Pair: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The pairs in order.
    public private(set) var pairs: [Pair]

    public init(_ pairs: [Pair] = []) {
        self.pairs = pairs
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = elements.map { Pair(name: $0.0, value: $0.1) }
    }

    /// The first value of the name `name`, or nil.
    public subscript(name: String) -> String? {
        pairs.first { Names.match($0.name, name) }?.value
    }

    /// Every value of the name `name`, in order.
    public func values(for name: String) -> [String] {
        pairs.filter { Names.match($0.name, name) }.map(\.value)
    }

    /// Appends a pair, keeping any earlier one of the same name.
    public mutating func add(_ name: String, _ value: String) {
        pairs.append(Pair(name: name, value: value))
    }

    /// Replaces every pair of the name `name` by one with `value`, at the end.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every pair of the name `name`.
    public mutating func remove(_ name: String) {
        pairs.removeAll { Names.match($0.name, name) }
    }

    public var count: Int { pairs.count }
    public var isEmpty: Bool { pairs.isEmpty }

    public func makeIterator() -> IndexingIterator<[Pair]> { pairs.makeIterator() }
}

extension NameValueList where Names == FieldNames {
    /// One header line.
    public typealias Field = Pair
}

extension NameValueList where Names == ParameterNames {
    /// One `name=value` parameter.
    public typealias Item = Pair

    /// The parameters in order.
    public var items: [Item] { pairs }
}

/// When two names in a `NameValueList` are the same name.
public protocol NameComparison: Sendable {
    static func match(_ a: String, _ b: String) -> Bool
}

/// Header field names, equal ignoring ASCII case.
public enum FieldNames: NameComparison {
    public static func match(_ a: String, _ b: String) -> Bool {
        HTTPSyntax.equalIgnoringASCIICase(a.utf8, b.utf8)
    }
}

/// Query parameter names, equal as Swift strings are: case counts.
public enum ParameterNames: NameComparison {
    public static func match(_ a: String, _ b: String) -> Bool { a == b }
}
