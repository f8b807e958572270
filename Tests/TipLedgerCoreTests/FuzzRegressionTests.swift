// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

/// Inputs the fuzz targets (Fuzz/) found breaking a property, kept in Tests/Fixtures/fuzz: each
/// is read here as the project means to read it. (They also seed every later fuzz run.)
@Suite struct FuzzRegressionTests {
    /// `{"p":1,"%\r<U+FEFF>":2}`: a U+FEFF right after an escape is part of the name. Foundation
    /// drops it, taking it for a byte order mark.
    @Test func aZeroWidthNoBreakSpaceAfterAnEscapeIsKept() throws {
        let value = try JSONParser.parse(try Fixtures.bytes("fuzz/json/zero-width-no-break-space-after-escape"))
        #expect(value == .object(["p": .integer(1), "%\r\u{FEFF}": .integer(2)]))
    }

    /// `{"":1,"<U+FEFF>":0}`: names that differ by a U+FEFF are two names, not a duplicate
    /// (Foundation, dropping the U+FEFF, makes them one and keeps the last value).
    @Test func namesThatDifferByAZeroWidthNoBreakSpaceAreTwo() throws {
        let value = try JSONParser.parse(try Fixtures.bytes("fuzz/json/names-differing-by-zero-width-no-break-space"))
        #expect(value == .object(["": .integer(1), "\u{FEFF}": .integer(0)]))
    }

    /// A webhook body's token keeps its U+FEFF, at its start as after an escape: the token is
    /// what was signed, so nothing may be taken out of it (the verifier then refuses it).
    @Test(arguments: ["zero-width-no-break-space-leading-token", "zero-width-no-break-space-in-token"])
    func aWebhookBodysTokenKeepsItsZeroWidthNoBreakSpaces(_ fixture: String) throws {
        let body = String(decoding: try Fixtures.bytes("fuzz/webhook/\(fixture)"), as: UTF8.self)
        let token = try WebhookBody.signedPayload(of: body)
        #expect(token.unicodeScalars.contains("\u{FEFF}"))
        #expect(try TestChains.verifier().lineRejection(body) == .malformedJWS)
    }

    /// `{"K":1e3082,"<KELVIN SIGN>":3}`: a number beyond a double is refused where it stands,
    /// though a later name equal to its own (and so refused as well) would replace it.
    @Test func aNumberOutOfRangeIsRefusedBeforeTheDuplicateThatWouldReplaceIt() throws {
        let error = #expect(throws: JSONSyntaxError.self) {
            try JSONParser.parse(try Fixtures.bytes("fuzz/json/number-out-of-range-then-duplicate"))
        }
        #expect(error?.description == "number out of range at byte 5")
    }

    /// Numbers Foundation reads as decimals (-2^63, 1697679936049.7297) are read exactly: -2^63
    /// as an integer, the fraction as the nearest double.
    @Test func numbersOfManyDigitsAreReadExactly() throws {
        let value = try JSONParser.parse(try Fixtures.bytes("fuzz/json/numbers-foundation-reads-as-decimals"))
        #expect(
            value
                == .array([
                    .integer(.max), .integer(.min), .double(9_223_372_036_854_775_808), .double(1e308), .double(0),
                    .double(1697679936049.7297),
                ]))
    }
}
