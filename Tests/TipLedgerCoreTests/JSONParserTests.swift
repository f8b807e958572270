// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try JSONParser.parse(text) }

    private func parse(bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue { try JSONParser.parse(bytes) }

    // MARK: Accepted

    @Test func anObjectOfEveryValueTypeParses() throws {
        let value = try parse(#" {"s":"x","i":-12,"d":1.5,"t":true,"f":false,"n":null,"a":[1,[]],"o":{}} "#)
        #expect(
            value
                == .object([
                    "s": .string("x"), "i": .integer(-12), "d": .double(1.5), "t": .bool(true), "f": .bool(false),
                    "n": .null, "a": .array([.integer(1), .array([])]), "o": .object([:]),
                ]))
    }

    @Test func jsonWhitespaceAroundTheValueIsAllowed() throws {
        #expect(try parse(" \t\r\n[ 1 , 2 ]\n") == .array([.integer(1), .integer(2)]))
    }

    @Test func escapesDecode() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u0041\u00e9\u20AC""#) == .string("Aé€"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse("\"caf\u{e9} \u{1F600}\"") == .string("café 😀"))
    }

    // MARK: Numbers

    @Test func integersThatFitStayExact() throws {
        #expect(try parse("9223372036854775807") == .integer(Int64.max))
        #expect(try parse("-9223372036854775808") == .integer(Int64.min))
        #expect(try parse("1767225600000") == .integer(1_767_225_600_000))
        #expect(try parse("0") == .integer(0))
        #expect(try parse("-0") == .integer(0))
    }

    @Test func integersTooBigForInt64BecomeDoubles() throws {
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parse("-9223372036854775809") == .double(-9.223_372_036_854_775_808e18))
        #expect(try parse("123456789012345678901234567890") == .double(1.2345678901234568e29))
    }

    @Test func fractionsAndExponentsAreDoubles() throws {
        #expect(try parse("1697679936049.7297") == .double(1697679936049.7297))
        #expect(try parse("1.0") == .double(1))
        #expect(try parse("1e3") == .double(1000))
        #expect(try parse("-2.5E-3") == .double(-0.0025))
        #expect(try parse("1E+2") == .double(100))
    }

    @Test(arguments: [
        "01", "-01", "00", "007", "-", "+1", ".5", "1.", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1e400",
        "-1e400",
    ])
    func malformedOrUnrepresentableNumbersAreRefused(_ text: String) {
        #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
        #expect(throws: JSONSyntaxError.self, "[\(text)]") { try parse("[\(text)]") }
    }

    // MARK: Refused

    @Test func duplicateMemberNamesAreRefused() {
        #expect(throws: JSONSyntaxError.self) { try parse(#"{"a":1,"a":2}"#) }
        #expect(throws: JSONSyntaxError.self) { try parse(#"{"a":1,"a":1}"#) }
        // The same name spelled with an escape is still a duplicate.
        #expect(throws: JSONSyntaxError.self) { try parse(#"{"price":1,"\u0070rice":2}"#) }
        // Nested objects have their own names.
        #expect((try? parse(#"{"a":{"a":1},"b":{"a":2}}"#)) != nil)
    }

    /// The error quotes the name from the input, cut short: an error is no echo chamber.
    @Test func aDuplicateMembersErrorQuotesAtMostFortyCharactersOfItsName() throws {
        func reason(_ text: String) -> String? {
            do {
                _ = try parse(text)
                return nil
            } catch {
                return error.reason
            }
        }
        let name = String(repeating: "n", count: 30_000)
        #expect(
            reason(#"{""# + name + #"":1,""# + name + #"":2}"#)
                == "duplicate member \"\(String(repeating: "n", count: 40))…\"")
        #expect(reason(#"{"a":1,"a":2}"#) == #"duplicate member "a""#)
    }

    @Test(arguments: ["[1,]", "{\"a\":1,}", "[,1]", "{,}", "[1,,2]", "{\"a\":1,,\"b\":2}"])
    func trailingAndStrayCommasAreRefused(_ text: String) {
        #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
    }

    @Test(arguments: [
        #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#, #""\udbff\udbff""#, #""\ude00\ud83d""#,
    ])
    func loneSurrogatesAreRefused(_ text: String) {
        #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
    }

    @Test(
        arguments: [
            [0xff], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc3], [0x80],
        ] as [[UInt8]])
    func invalidUTF8InStringsIsRefused(_ sequence: [UInt8]) {
        let quote = UInt8(ascii: "\"")
        // Without an escape (the fast path) and after one (the slow path).
        #expect(throws: JSONSyntaxError.self) { try parse(bytes: [quote] + sequence + [quote]) }
        #expect(throws: JSONSyntaxError.self) {
            try parse(bytes: [quote, UInt8(ascii: "\\"), UInt8(ascii: "n")] + sequence + [quote])
        }
    }

    @Test func invalidUTF8OutsideStringsIsRefused() {
        #expect(throws: JSONSyntaxError.self) { try parse(bytes: [0xef, 0xbb, 0xbf] + Array("{}".utf8)) }
        #expect(throws: JSONSyntaxError.self) { try parse(bytes: Array("{}".utf8) + [0xff]) }
    }

    @Test(arguments: [0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f] as [UInt8])
    func controlCharactersInStringsAreRefused(_ control: UInt8) {
        let quote = UInt8(ascii: "\"")
        #expect(throws: JSONSyntaxError.self) { try parse(bytes: [quote, UInt8(ascii: "a"), control, quote]) }
        #expect(throws: JSONSyntaxError.self) {
            try parse(bytes: [quote, UInt8(ascii: "\\"), UInt8(ascii: "t"), control, quote])
        }
    }

    @Test(arguments: [#""\x41""#, #""\u12""#, #""\u12G4""#, #""\'""#, #""\U0041""#, #""abc"#, #""\"#])
    func invalidEscapesAndUnterminatedStringsAreRefused(_ text: String) {
        #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
    }

    @Test func nestingIsLimitedToTheMaximumDepth() throws {
        let depth = JSONParser.maximumDepth
        let deepest = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect((try? parse(deepest)) != nil)
        let tooDeep = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        #expect(throws: JSONSyntaxError.self) { try parse(tooDeep) }
        let objects = String(repeating: #"{"a":"#, count: depth + 1) + "1" + String(repeating: "}", count: depth + 1)
        #expect(throws: JSONSyntaxError.self) { try parse(objects) }
        // Depth is nesting, not count: many siblings at depth 1 are fine.
        #expect((try? parse("[" + Array(repeating: "[]", count: 1000).joined(separator: ",") + "]")) != nil)
        // A hostile depth fails fast instead of exhausting the stack.
        #expect(throws: JSONSyntaxError.self) { try parse(String(repeating: "[", count: 100_000)) }
    }

    /// The limit is a parameter (the fuzzing self-test lifts it); a caller may also lower it.
    @Test func aCallerMayAskForAnotherDepthLimit() throws {
        #expect(try JSONParser.parse(Array("[[1]]".utf8), maximumDepth: 2) == .array([.array([.integer(1)])]))
        let error = #expect(throws: JSONSyntaxError.self) {
            try JSONParser.parse(Array("[[[1]]]".utf8), maximumDepth: 2)
        }
        #expect(error?.description == "nesting deeper than 2 at byte 2")
    }

    @Test(arguments: ["{} x", "1 2", "{}}", "[]]", "{}{}", "\"a\"\"b\"", "null,", "true false"])
    func trailingTextIsRefused(_ text: String) {
        #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
    }

    @Test(arguments: [
        "", " ", "tru", "nul", "falsey", "True", "'a'", "{a:1}", "{\"a\" 1}", "{\"a\":}", "[1 2]", "{\"a\":1 \"b\":2}",
        "[", "{", "/* c */ {}", "\u{a0}{}",
    ])
    func nonJSONIsRefused(_ text: String) {
        #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
    }

    @Test func stringErrorsSayWhatAndWhere() {
        let cases: [(bytes: [UInt8], offset: Int, reason: String)] = [
            (Array(#""ab"#.utf8) + [0x01] + Array(#"c""#.utf8), 3, "control character in a string"),
            (Array(#"["ok",""#.utf8) + [0xff, UInt8(ascii: "\"")], 7, "invalid UTF-8 in a string"),
            (Array(#""a\n"#.utf8) + [0xc3, UInt8(ascii: "\"")], 1, "invalid UTF-8 in a string"),
            (Array(#""abc"#.utf8), 4, "unterminated string"),
            (Array(#""a\nb"#.utf8), 5, "unterminated string"),
        ]
        for (bytes, offset, reason) in cases {
            do {
                _ = try parse(bytes: bytes)
                Issue.record("\(bytes) was accepted")
            } catch {
                #expect(error.offset == offset && error.reason == reason, "\(bytes)")
            }
        }
    }

    @Test func integersAreReadExactlyAtTheEdgesOfInt64() throws {
        #expect(
            try parse("[-9223372036854775808,9223372036854775807,-0,0,-1,10]")
                == .array([.integer(.min), .integer(.max), .integer(0), .integer(0), .integer(-1), .integer(10)]))
        #expect(try parse("92233720368547758080") == .double(92_233_720_368_547_758_080))
        #expect(try parse("-92233720368547758080") == .double(-92_233_720_368_547_758_080))
    }

    @Test func errorsSayWhereReadingStopped() {
        do {
            _ = try parse(#"{"a":1,"a":2}"#)
            Issue.record("a duplicate member was accepted")
        } catch {
            #expect(error.offset == 7)
            #expect(error.reason.contains("duplicate"))
        }
    }
}
