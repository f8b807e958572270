// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An element of a document read by Foundation's XML parser (libxml2): a strict check that
/// markup a program wrote is well-formed, and a tree to look into.
public struct MarkupNode: Sendable {
    public let name: String
    public let attributes: [String: String]
    public fileprivate(set) var children: [MarkupNode] = []
    /// The element's content in order: runs of text, and children by index.
    fileprivate var content: [Content] = []

    fileprivate enum Content: Sendable {
        case text(String)
        case child(Int)
    }

    /// The document's root element; throws with the parser's message and line when the text is
    /// not well-formed XML.
    public static func parse(_ text: String) throws -> MarkupNode {
        let parser = XMLParser(data: Data(text.utf8))
        let builder = TreeBuilder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw MalformedMarkup(
                message: parser.parserError.map { "\($0)" } ?? "no root element", line: parser.lineNumber,
                column: parser.columnNumber)
        }
        return root
    }

    /// Every element below this one, in document order.
    public var descendants: [MarkupNode] { children.flatMap { [$0] + $0.descendants } }

    /// The elements below this one named `name`, with `className` among their classes when given.
    public func all(_ name: String, class className: String? = nil) -> [MarkupNode] {
        descendants.filter { $0.name == name && (className.map($0.hasClass) ?? true) }
    }

    /// The first element below this one named `name` (with the class, when given).
    public func first(_ name: String, class className: String? = nil) -> MarkupNode? {
        all(name, class: className).first
    }

    public func hasClass(_ name: String) -> Bool {
        (attributes["class"] ?? "").split(separator: " ").contains { $0 == name }
    }

    /// The element's text and its descendants', in document order.
    public var text: String {
        content.map { part in
            switch part {
            case .text(let text): text
            case .child(let index): children[index].text
            }
        }.joined()
    }
}

/// A document an XML parser refused.
public struct MalformedMarkup: Error, CustomStringConvertible {
    public let message: String
    public let line: Int
    public let column: Int
    public var description: String { "not well-formed at \(line):\(column): \(message)" }
}

/// Builds the tree as the parser reports elements.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [MarkupNode] = []
    var root: MarkupNode?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String]
    ) {
        stack.append(MarkupNode(name: elementName, attributes: attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].content.append(.text(string))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let finished = stack.removeLast()
        if stack.isEmpty {
            root = finished
        } else {
            stack[stack.count - 1].content.append(.child(stack[stack.count - 1].children.count))
            stack[stack.count - 1].children.append(finished)
        }
    }
}
