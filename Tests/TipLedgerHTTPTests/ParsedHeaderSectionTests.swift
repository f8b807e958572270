// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerHTTP

/// The header section check on sections laid out by hand as libmicrohttpd leaves them (a NUL
/// over each line ending's bytes and each colon), including places no real section has: the
/// check refuses them, and never reads outside the section.
@Suite struct ParsedHeaderSectionTests {
    /// "GET /a HTTP/1.1", then "Host: x" with `hostValue` in place of "x", then the blank line,
    /// all with CR LF endings; the Host field at its true place unless moved.
    func hidesNothing(
        hostValue: [UInt8] = Array("x".utf8), valueLength: Int? = nil, nameOffset: Int? = nil,
        requestLineEnd: Int? = nil
    ) -> Bool {
        let requestLine = Array("GET\0/a\0HTTP/1.1".utf8)
        let bytes = requestLine + [0, 0] + Array("Host\0 ".utf8) + hostValue + [0, 0, 0, 0]
        let name = nameOffset ?? requestLine.count + 2
        let value = requestLine.count + 2 + 6
        let field = ParsedHeaderSection.Field(
            name: name..<(name + 4), value: value..<(value + (valueLength ?? hostValue.count)))
        return bytes.withUnsafeBytes { buffer in
            ParsedHeaderSection(bytes: buffer, requestLineEnd: requestLineEnd ?? requestLine.count, fields: [field])
                .hidesNothing
        }
    }

    @Test func aSectionOfWholeFieldsHidesNothing() {
        #expect(hidesNothing())
        #expect(hidesNothing(hostValue: Array("a b\t".utf8)))
    }

    /// libmicrohttpd measures a value up to its first NUL: the bytes after it are hidden.
    @Test func aValueCutAtANulHidesTheRestOfItsLine() {
        #expect(!hidesNothing(hostValue: Array("x\0y".utf8), valueLength: 1))
        #expect(!hidesNothing(hostValue: Array("x\0".utf8), valueLength: 1))
    }

    @Test(arguments: [-100, -1, 0, 14, 19, 1000])
    func aFieldOutOfPlaceIsRefused(nameOffset: Int) {
        #expect(!hidesNothing(nameOffset: nameOffset))
    }

    @Test(arguments: [-1, 1000, Int.max / 2])
    func aRequestLineEndOutsideTheSectionIsRefused(requestLineEnd: Int) {
        #expect(!hidesNothing(requestLineEnd: requestLineEnd))
    }

    @Test func aValueRunningPastTheSectionIsRefused() {
        #expect(!hidesNothing(valueLength: 1000))
    }
}
