// SPDX-License-Identifier: GPL-3.0-or-later

/// HTML with inline SVG, written so that an HTML parser and an XML parser read the same tree:
/// every element is closed, every attribute quoted, and text escaped for both. Product names,
/// storefronts and currencies come from signed payloads and catalogs and may carry anything.
struct Markup {
    private(set) var text = ""

    /// `<name attributes>`, what `content` writes, then `</name>`.
    mutating func element(_ name: String, _ attributes: [(String, String)] = [], _ content: (inout Markup) -> Void) {
        open(name, attributes)
        content(&self)
        text += "</\(name)>"
    }

    /// `<name attributes>text</name>`, the text escaped.
    mutating func element(_ name: String, _ attributes: [(String, String)] = [], text content: String) {
        element(name, attributes) { $0.text(content) }
    }

    /// `<name attributes/>`: for HTML's void elements (`meta`, `link`) and SVG's, which may be
    /// self-closed in HTML too. Any other HTML element needs `element`, as HTML reads `<span/>` as
    /// an opening tag.
    mutating func empty(_ name: String, _ attributes: [(String, String)] = []) {
        text += "<\(name)"
        writeAttributes(attributes)
        text += "/>"
    }

    /// Escaped text.
    mutating func text(_ content: String) {
        text += Self.escaped(content)
    }

    /// Text written as it is: only constants of this module (the doctype, the style sheet).
    mutating func raw(_ content: StaticString) {
        text += content.description
    }

    private mutating func open(_ name: String, _ attributes: [(String, String)]) {
        text += "<\(name)"
        writeAttributes(attributes)
        text += ">"
    }

    private mutating func writeAttributes(_ attributes: [(String, String)]) {
        for (name, value) in attributes { text += " \(name)=\"\(Self.escaped(value))\"" }
    }

    /// `text` safe in element content and in a quoted attribute, in HTML and in XML alike: the
    /// five markup characters as references, and each character XML 1.0 does not allow, or
    /// allows only to be discouraged (controls but tab and line ends, DEL and the C1 controls,
    /// the noncharacters), as U+FFFD, so the page always parses.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n": escaped.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
                let isNoncharacter = (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
                escaped.unicodeScalars.append(isControl || isNoncharacter ? "\u{FFFD}" : scalar)
            }
        }
        return escaped
    }
}
