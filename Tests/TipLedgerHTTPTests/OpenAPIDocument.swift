// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

/// `docs/openapi.json`, read for what the contract tests need: its operations and the answers
/// each documents, and a check of one answer against them.
struct OpenAPIDocument {
    /// One documented answer: a path template, a method (upper case) and a status.
    struct Answer: Hashable, Comparable, CustomStringConvertible {
        let path: String
        let method: String
        let status: Int

        var description: String { "\(method) \(path) \(status)" }

        static func < (lhs: Answer, rhs: Answer) -> Bool { lhs.description < rhs.description }
    }

    static let path = "\(Fixtures.projectDirectory)/docs/openapi.json"

    /// The methods an OpenAPI path item may hold operations for.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    let root: JSONValue

    init() throws {
        root = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Self.path))))
    }

    private var paths: JSONObject { JSONSchema.resolve("#/paths", in: root)?.objectValue ?? [:] }

    /// The documented path templates, as written (`/v1/accounts/{account}/transactions`).
    var pathTemplates: [String] { paths.map(\.name) }

    /// The methods documented for `path`, in upper case.
    func methods(of path: String) -> [String] {
        guard let item = paths[path]?.objectValue else { return [] }
        return Self.methods.filter { item[$0] != nil }.map { $0.uppercased() }
    }

    /// Every answer the document lists.
    var answers: Set<Answer> {
        var answers: Set<Answer> = []
        for path in pathTemplates {
            for method in methods(of: path) {
                let responses = JSONSchema.resolve(pointer(path, method) + "/responses", in: root)?.objectValue ?? [:]
                for response in responses {
                    if let status = Int(response.name) {
                        answers.insert(Answer(path: path, method: method, status: status))
                    }
                }
            }
        }
        return answers
    }

    /// The JSON pointer of an operation.
    private func pointer(_ path: String, _ method: String) -> String {
        "#/paths/" + path.replacing("~", with: "~0").replacing("/", with: "~1") + "/" + method.lowercased()
    }

    /// The response object the document gives for `answer`, its `$ref` followed.
    func response(for answer: Answer) -> JSONValue? {
        response(at: pointer(answer.path, answer.method) + "/responses/\(answer.status)")
    }

    /// The response object a path item gives for the methods it does not take
    /// (`x-other-methods`).
    func otherMethodsResponse(of path: String) -> JSONValue? {
        response(at: "#/paths/" + path.replacing("~", with: "~0").replacing("/", with: "~1") + "/x-other-methods")
    }

    /// The response object for a path no route has (`x-unknown-path`).
    var unknownPathResponse: JSONValue? { response(at: "#/x-unknown-path") }

    private func response(at pointer: String) -> JSONValue? {
        guard var response = JSONSchema.resolve(pointer, in: root) else { return nil }
        while case .string(let target)? = response.objectValue?["$ref"] {
            guard let next = JSONSchema.resolve(target, in: root) else { return nil }
            response = next
        }
        return response
    }

    /// The documented template a request path falls under (`{name}` matches one segment, even
    /// an empty one: the route is the same, and answers that its parameter is wrong).
    func template(matching path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return pathTemplates.first { template in
            let parts = template.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == segments.count
                && zip(parts, segments).allSatisfy { part, segment in
                    (part.hasPrefix("{") && part.hasSuffix("}")) || part == segment
                }
        }
    }

    /// What in `answer` departs from `response`, a response object of the document: a header
    /// it requires that is missing or has another value, a content type it does not list, a body
    /// that does not fit its schema, or a body where it lists no content (a HEAD answer).
    func problems(of answer: LoopbackResponse, against response: JSONValue) -> [String] {
        var found: [String] = []
        let headers = response.objectValue?["headers"]?.objectValue ?? [:]
        for header in headers where header.value.objectValue?["required"] == .bool(true) {
            guard let value = answer.headers[header.name] else {
                found.append("the header \(header.name) is missing")
                continue
            }
            if let schema = header.value.objectValue?["schema"] {
                found += JSONSchema(schema, in: root).problems(of: .string(value)).map { "header \(header.name)\($0)" }
            }
        }
        guard let content = response.objectValue?["content"]?.objectValue, !content.isEmpty else {
            if !answer.body.isEmpty {
                found.append("a body of \(answer.body.count) bytes where the document lists none")
            }
            return found
        }
        let type = answer.headers["Content-Type"] ?? "(none)"
        guard let media = content[type]?.objectValue else {
            return found + ["Content-Type \(type) is not one the document lists (\(content.map(\.name)))"]
        }
        guard let schema = media["schema"] else { return found }
        let body: JSONValue
        if type.hasPrefix("application/json") {
            do {
                body = try JSONParser.parse(answer.body)
            } catch {
                return found + ["the body is not JSON: \(error)"]
            }
        } else {
            body = .string(answer.bodyText)
        }
        return found + JSONSchema(schema, in: root).problems(of: body).map { "body\($0)" }
    }
}
