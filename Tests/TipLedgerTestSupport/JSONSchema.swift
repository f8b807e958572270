// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A schema of the subset of JSON Schema 2020-12 (the dialect of OpenAPI 3.1) that
/// `docs/openapi.json` uses, to check the service's answers against the document.
///
/// The keywords it checks: `$ref` (to a place in the same document), `type` (one name or a
/// list), `const`, `enum`, `properties`, `required`, `additionalProperties`, `items`, `oneOf`,
/// `anyOf` and `minimum`; `description`, `title`, `format` and `examples` are annotations. Any
/// other keyword is reported as a problem, so the document cannot lean on a rule nothing checks.
///
/// Stricter than the standard in one way: an object's members must all be named in
/// `properties` unless `additionalProperties` says otherwise. The document promises clients
/// nothing about members it does not name, but the tests hold it to naming every member the
/// service sends.
public struct JSONSchema: Sendable {
    /// The document that `$ref`s are resolved in.
    let document: JSONValue
    let schema: JSONValue

    /// The schema `schema`, whose `$ref`s point into `document`.
    public init(_ schema: JSONValue, in document: JSONValue) {
        self.document = document
        self.schema = schema
    }

    /// What in `value` does not fit the schema, each problem led by its place as a JSON pointer
    /// (`/rows/0/net_milli`); empty when it fits.
    public func problems(of value: JSONValue) -> [String] {
        problems(of: value, against: schema, at: "", depth: 0)
    }

    /// The value at `pointer` (`#/components/schemas/Report`) in `document`, or nil.
    public static func resolve(_ pointer: String, in document: JSONValue) -> JSONValue? {
        guard pointer.hasPrefix("#") else { return nil }
        var current = document
        for token in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            // RFC 6901: "~1" stands for "/" and "~0" for "~", unescaped in that order.
            let name = String(token).replacing("~1", with: "/").replacing("~0", with: "~")
            switch current {
            case .object(let members):
                guard let next = members[name] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(name), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    private static let annotations: Set<String> = ["description", "title", "format", "examples"]
    private static let checked: Set<String> = [
        "$ref", "type", "const", "enum", "properties", "required", "additionalProperties", "items", "oneOf", "anyOf",
        "minimum",
    ]

    private func problems(of value: JSONValue, against schema: JSONValue, at place: String, depth: Int) -> [String] {
        // A cycle of `$ref`s would recurse for ever; no schema of the document nests this deep.
        guard depth < 64 else { return ["\(place): the schema nests deeper than 64"] }
        guard case .object(let keywords) = schema else {
            return ["\(place): the schema is \(schema.typeName), not an object"]
        }
        var found: [String] = []
        for keyword in keywords where !Self.checked.contains(keyword.name) && !Self.annotations.contains(keyword.name) {
            found.append("\(place): the checker does not know the keyword \(keyword.name)")
        }
        if case .string(let pointer)? = keywords["$ref"] {
            guard let target = Self.resolve(pointer, in: document) else {
                return found + ["\(place): $ref \(pointer) points nowhere"]
            }
            found += problems(of: value, against: target, at: place, depth: depth + 1)
        }
        if let types = keywords["type"] {
            let names: [String]
            switch types {
            case .string(let name): names = [name]
            case .array(let list): names = list.compactMap(\.stringValue)
            default: names = []
            }
            guard names.contains(where: { Self.hasType(value, $0) }) else {
                return found + [
                    "\(place): \(value.typeName) where the document says \(names.joined(separator: " or "))"
                ]
            }
        }
        if let expected = keywords["const"], value != expected {
            found.append("\(place): \(Self.shown(value)) where the document says \(Self.shown(expected))")
        }
        if case .array(let allowed)? = keywords["enum"], !allowed.contains(value) {
            found.append("\(place): \(Self.shown(value)) is not one of the document's values")
        }
        if case .integer(let bound)? = keywords["minimum"], case .integer(let number) = value, number < bound {
            found.append("\(place): \(number) is below the document's minimum \(bound)")
        }
        // Only a schema that describes an object's members holds them to its list; one that
        // refers to another (`$ref`, `oneOf`) leaves that to the other.
        let describesMembers = keywords["properties"] != nil || keywords["additionalProperties"] != nil
        if case .object(let members) = value, describesMembers || Self.namesType(keywords["type"], "object") {
            found += objectProblems(members, keywords, at: place, depth: depth)
        }
        if case .array(let elements) = value, let items = keywords["items"] {
            for (index, element) in elements.enumerated() {
                found += problems(of: element, against: items, at: "\(place)/\(index)", depth: depth + 1)
            }
        }
        if case .array(let choices)? = keywords["oneOf"] {
            let fitting = choices.filter { problems(of: value, against: $0, at: place, depth: depth + 1).isEmpty }
            if fitting.count != 1 {
                found.append("\(place): fits \(fitting.count) of the document's oneOf choices, not exactly one")
            }
        }
        if case .array(let choices)? = keywords["anyOf"],
            !choices.contains(where: { problems(of: value, against: $0, at: place, depth: depth + 1).isEmpty })
        {
            found.append("\(place): fits none of the document's anyOf choices")
        }
        return found
    }

    private func objectProblems(_ members: JSONObject, _ keywords: JSONObject, at place: String, depth: Int)
        -> [String]
    {
        var found: [String] = []
        let properties = keywords["properties"]?.objectValue ?? [:]
        if case .array(let required)? = keywords["required"] {
            for name in required.compactMap(\.stringValue) where members[name] == nil {
                found.append("\(place): the member \(name) the document requires is missing")
            }
        }
        for member in members {
            let memberPlace = "\(place)/\(member.name)"
            if let schema = properties[member.name] {
                found += problems(of: member.value, against: schema, at: memberPlace, depth: depth + 1)
                continue
            }
            switch keywords["additionalProperties"] {
            case .bool(true)?:
                continue
            case .object(let schema)?:
                found += problems(of: member.value, against: .object(schema), at: memberPlace, depth: depth + 1)
            default:
                found.append("\(memberPlace): a member the document does not name")
            }
        }
        return found
    }

    /// Whether a `type` keyword's value names `name`.
    private static func namesType(_ types: JSONValue?, _ name: String) -> Bool {
        switch types {
        case .string(let type)?: type == name
        case .array(let list)?: list.contains(.string(name))
        default: false
        }
    }

    /// Whether `value` is of the JSON Schema type `name` (an integer is a number too, and a
    /// number without a fraction an integer).
    private static func hasType(_ value: JSONValue, _ name: String) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("integer", .integer), ("number", .integer), ("number", .double):
            true
        case ("integer", .double(let number)):
            number.rounded() == number
        default:
            false
        }
    }

    /// A value for a message: strings quoted, other values by their type, never a whole object.
    private static func shown(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text.prefix(60))\""
        case .integer(let number): String(number)
        case .bool(let flag): String(flag)
        default: value.typeName
        }
    }
}
