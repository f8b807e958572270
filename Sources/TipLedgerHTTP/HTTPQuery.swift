// SPDX-License-Identifier: GPL-3.0-or-later

/// The parameters of a request's query string, percent-decoded, in order.
///
/// Names are case-sensitive. A parameter without `=` (`?verbose`) has the empty value. A name may
/// repeat: `subscript` returns the first value, `values(for:)` all of them.
public struct HTTPQuery: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    /// One `name=value` pair.
    public struct Item: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The parameters in order.
    public let items: [Item]

    public init(_ items: [Item] = []) {
        self.items = items
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        items = elements.map { Item(name: $0.0, value: $0.1) }
    }

    /// The first value of the parameter called `name`, or nil.
    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// Every value of the parameter called `name`, in order.
    public func values(for name: String) -> [String] {
        items.filter { $0.name == name }.map(\.value)
    }

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }
}
