// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerCore

/// Objects as the parser builds them: member order, lookups, and duplicate names refused in both
/// the small-object scan and the set used past `JSONObject.Builder.linearLimit` members.
@Suite struct JSONObjectTests {
    private func object(_ text: String) throws -> JSONObject {
        try #require(try JSONParser.parse(text).objectValue)
    }

    /// `{"m0":0,"m1":1,...}` with `count` members, then `extra` members verbatim.
    private func manyMembers(_ count: Int, then extra: [String] = []) -> String {
        "{" + ((0..<count).map { "\"m\($0)\":\($0)" } + extra).joined(separator: ",") + "}"
    }

    /// The offset and reason of the syntax error `text` raises, or nil when it parses.
    private func syntaxError(_ text: String) -> JSONSyntaxError? {
        do {
            _ = try JSONParser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func membersKeepTheOrderOfTheText() throws {
        let parsed = try object(#"{"b":1,"a":2,"c":{"z":true,"y":null}}"#)
        #expect(parsed.map(\.name) == ["b", "a", "c"])
        #expect(parsed["c"]?.objectValue?.map(\.name) == ["z", "y"])
        #expect(parsed["a"] == .integer(2))
        #expect(parsed["d"] == nil)
    }

    @Test func aDuplicateInASmallObjectIsRefusedWhereItsNameStarts() {
        let text = #"{"transactionId":"1","price":990,"transactionId":"2"}"#
        let error = syntaxError(text)
        #expect(error?.reason == #"duplicate member "transactionId""#)
        #expect(error?.offset == 33)
    }

    @Test(arguments: [JSONObject.Builder.linearLimit - 1, JSONObject.Builder.linearLimit, 40, 1000])
    func aDuplicateInALargeObjectIsRefused(_ count: Int) {
        // Of the first member, of the last one before the limit, and of the last one.
        for name in ["m0", "m\(min(count, JSONObject.Builder.linearLimit) - 1)", "m\(count - 1)"] {
            let text = manyMembers(count, then: ["\"\(name)\":true"])
            let error = syntaxError(text)
            #expect(error?.reason == "duplicate member \"\(name)\"", "\(count) members, again \(name)")
            #expect(error?.offset == text.utf8.count - "\"\(name)\":true}".utf8.count)
        }
    }

    @Test func aDuplicateSpelledWithAnEscapeIsRefusedInALargeObject() {
        let error = syntaxError(manyMembers(100, then: [#""\u006d7":7"#]))
        #expect(error?.reason == #"duplicate member "m7""#)
    }

    @Test func anObjectWithThousandsOfMembersFindsEveryOne() throws {
        let parsed = try object(manyMembers(5000))
        #expect(parsed.count == 5000)
        for index in [0, 1, 31, 32, 33, 2500, 4999] {
            #expect(parsed["m\(index)"] == .integer(Int64(index)))
        }
        #expect(parsed["m5000"] == nil)
        #expect(parsed.map(\.name) == (0..<5000).map { "m\($0)" })
    }

    @Test func namesOfOneLengthAndTheSameEndsAreToldApart() throws {
        // Same length, first two and last two bytes: equal keys, different names.
        let parsed = try object(#"{"abXYcd":1,"abZWcd":2,"ab__cd":3}"#)
        #expect(parsed["abXYcd"] == .integer(1))
        #expect(parsed["abZWcd"] == .integer(2))
        #expect(parsed["ab__cd"] == .integer(3))
        #expect(parsed["abQQcd"] == nil)
        #expect(syntaxError(#"{"abXYcd":1,"abZWcd":2,"abXYcd":3}"#)?.reason == #"duplicate member "abXYcd""#)
    }

    @Test func emptyAndOneByteNamesAreMembersLikeAnyOther() throws {
        let parsed = try object(#"{"":1,"a":2,"é":3}"#)
        #expect(parsed[""] == .integer(1))
        #expect(parsed["a"] == .integer(2))
        #expect(parsed["é"] == .integer(3))
        #expect(syntaxError(#"{"":1,"a":2,"":3}"#)?.reason == #"duplicate member """#)
    }

    @Test func namesAreTheSameWhenSwiftStringsAreEqual() throws {
        // Canonically equivalent spellings are one name, as they were as dictionary keys: the
        // Kelvin sign and "K", and "é" precomposed and decomposed.
        #expect(syntaxError(#"{"Key":1,"\u212Aey":2}"#)?.reason == "duplicate member \"\u{212A}ey\"")
        #expect(syntaxError(#"{"\u212Aey":1,"Key":2}"#)?.reason == #"duplicate member "Key""#)
        #expect(syntaxError(#"{"caf\u00e9":1,"cafe\u0301":2}"#)?.reason == "duplicate member \"cafe\u{301}\"")
        #expect(syntaxError(manyMembers(100, then: [#""Key":1"#, #""\u212Aey":2"#])) != nil)
        let kelvin = try object(#"{"a":0,"\u212Aey":1}"#)
        #expect(kelvin["Key"] == .integer(1))
        #expect(kelvin["\u{212A}ey"] == .integer(1))
        let ascii = try object(#"{"a":0,"Key":1}"#)
        #expect(ascii["\u{212A}ey"] == .integer(1))
        #expect(ascii["Kex"] == nil)
        // The models' lookups by names written in the source agree.
        #expect(kelvin.value(named: "Key") == .integer(1))
        #expect(ascii.value(named: "\u{212A}ey") == .integer(1))
        #expect(try object(#"{"cafe\u0301":2}"#).value(named: "caf\u{e9}") == .integer(2))
    }

    @Test func lookupsByASourceNameFindWhatSubscriptsFind() throws {
        let parsed = try object(manyMembers(40, then: [#""abXYcd":"x""#, #""abZWcd":"y""#]))
        #expect(parsed.value(named: "m0") == .integer(0))
        #expect(parsed.value(named: "m39") == .integer(39))
        #expect(parsed.value(named: "abZWcd") == .string("y"))
        #expect(parsed.value(named: "abXYcd") == .string("x"))
        #expect(parsed.value(named: "abQQcd") == nil)
        #expect(parsed.value(named: "m40") == nil)
        #expect(parsed.value(named: "") == nil)
        #expect(try object(#"{"":1}"#).value(named: "") == .integer(1))
    }

    @Test func objectsAreEqualWhateverTheOrderOfTheirMembers() throws {
        #expect(try object(#"{"a":1,"b":[true]}"#) == ["b": .array([.bool(true)]), "a": .integer(1)])
        #expect(try object(#"{"a":1,"b":2}"#) != ["a": .integer(1)])
        #expect(try object(#"{"a":1}"#) != ["a": .integer(2)])
        #expect(try object(#"{"a":1}"#) != ["b": .integer(1)])
        #expect(try object("{}") == [:])
    }

    @Test func aWrongTypeAmongManyUnknownMembersStillNamesTheField() throws {
        let reader = PayloadReader(try object(manyMembers(200, then: [#""price":"9.99""#])))
        #expect(throws: PayloadError(field: "price", reason: "expected an integer, got a string")) {
            try JWSTransactionDecodedPayload(reader)
        }
    }
}
