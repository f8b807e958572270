// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

/// The schema checker the contract tests use finds what does not fit, and only that: a checker
/// that passes everything would let the document say anything.
@Suite struct JSONSchemaTests {
    /// A document with one named schema, for `$ref`.
    static let document = """
        {"components":{"schemas":{"Money":{"type":"object","properties":{"net_milli":{"type":"integer"},
        "currency":{"type":["string","null"]}},"required":["net_milli","currency"]}}}}
        """

    struct Case: Sendable, CustomTestStringConvertible {
        let schema: String
        let value: String
        /// A piece of the one problem expected; nil when the value fits.
        let problem: String?

        var testDescription: String { "\(value) against \(schema)" }
    }

    static let cases: [Case] = [
        Case(schema: #"{"type":"integer"}"#, value: "9990", problem: nil),
        Case(schema: #"{"type":"integer"}"#, value: "9.5", problem: "a number where the document says integer"),
        Case(schema: #"{"type":"number"}"#, value: "9990", problem: nil),
        Case(schema: #"{"type":["string","null"]}"#, value: "null", problem: nil),
        Case(schema: #"{"type":["string","null"]}"#, value: "true", problem: "a boolean where"),
        Case(
            schema: #"{"const":"ok"}"#, value: #""unavailable""#,
            problem: #""unavailable" where the document says "ok""#),
        Case(schema: #"{"enum":["pending","finished"]}"#, value: #""refunded""#, problem: "not one of"),
        Case(schema: #"{"minimum":0}"#, value: "-1", problem: "below the document's minimum 0"),
        Case(
            schema: ##"{"$ref":"#/components/schemas/Money"}"##, value: #"{"net_milli":990,"currency":"USD"}"#,
            problem: nil),
        Case(
            schema: ##"{"$ref":"#/components/schemas/Money"}"##, value: #"{"net_milli":990}"#,
            problem: "the member currency the document requires is missing"),
        Case(
            schema: ##"{"$ref":"#/components/schemas/Money"}"##, value: #"{"net_milli":990,"currency":null,"x":1}"#,
            problem: "/x: a member the document does not name"),
        Case(
            schema: #"{"type":"object","additionalProperties":true}"#, value: #"{"x":1}"#, problem: nil),
        Case(
            schema: ##"{"type":"array","items":{"$ref":"#/components/schemas/Money"}}"##,
            value: #"[{"net_milli":1,"currency":"EUR"},{"net_milli":"1","currency":"EUR"}]"#,
            problem: "/1/net_milli: a string where the document says integer"),
        Case(
            schema: #"{"oneOf":[{"type":"string"},{"type":"integer"}]}"#, value: "1", problem: nil),
        Case(
            schema: #"{"oneOf":[{"type":"number"},{"type":"integer"}]}"#, value: "1",
            problem: "fits 2 of the document's oneOf choices"),
        Case(schema: #"{"anyOf":[{"type":"string"},{"type":"null"}]}"#, value: "1", problem: "fits none"),
        Case(schema: ##"{"$ref":"#/components/schemas/Nothing"}"##, value: "1", problem: "points nowhere"),
        Case(schema: #"{"pattern":"^[A-Z]{3}$"}"#, value: #""USD""#, problem: "does not know the keyword pattern"),
    ]

    @Test(arguments: cases)
    func valuesAreCheckedAgainstTheSchema(_ check: Case) throws {
        let document = try JSONParser.parse(Self.document)
        let schema = JSONSchema(try JSONParser.parse(check.schema), in: document)

        let problems = schema.problems(of: try JSONParser.parse(check.value))

        if let expected = check.problem {
            #expect(problems.count == 1 && problems[0].contains(expected), "\(problems)")
        } else {
            #expect(problems == [])
        }
    }
}
