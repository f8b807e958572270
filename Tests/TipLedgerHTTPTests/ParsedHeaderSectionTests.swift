// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import TipLedgerHTTP

/// The header section check on sections laid out by hand as libmicrohttpd leaves them (a NUL
/// over the request line's spaces, each line ending's bytes and each colon), including places
/// no real section has: the check refuses them, and never reads outside the section.
@Suite struct ParsedHeaderSectionTests {
    /// "GET /a HTTP/1.1" as libmicrohttpd leaves it: the method ends at 3, the target starts at
    /// 4, the version at 7 and ends at 15.
    static let requestLine = Array("GET\0/a\0HTTP/1.1".utf8)
    static let lineParts = ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: 4, versionStart: 7, end: 15)

    /// `requestLine`, then "Host: x" with `hostValue` in place of "x", then the blank line, all
    /// with CR LF endings; the Host field at its true place unless moved.
    func section<Result>(
        requestLine: [UInt8] = requestLine, parts: ParsedHeaderSection.RequestLine = lineParts,
        targetBytesAllowed: Int = 2, hostValue: [UInt8] = Array("x".utf8), valueLength: Int? = nil,
        nameOffset: Int? = nil, _ body: (ParsedHeaderSection) -> Result
    ) -> Result {
        let bytes = requestLine + [0, 0] + Array("Host\0 ".utf8) + hostValue + [0, 0, 0, 0]
        let name = nameOffset ?? requestLine.count + 2
        let value = requestLine.count + 2 + 6
        let field = ParsedHeaderSection.Field(
            name: name..<(name + 4), value: value..<(value + (valueLength ?? hostValue.count)))
        return bytes.withUnsafeBytes { buffer in
            body(
                ParsedHeaderSection(
                    bytes: buffer, requestLine: parts, targetBytesAllowed: targetBytesAllowed, fields: [field]))
        }
    }

    func hidesNothing(
        hostValue: [UInt8] = Array("x".utf8), valueLength: Int? = nil, nameOffset: Int? = nil,
        requestLineEnd: Int = 15
    ) -> Bool {
        let parts = ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: 4, versionStart: 7, end: requestLineEnd)
        return section(parts: parts, hostValue: hostValue, valueLength: valueLength, nameOffset: nameOffset) {
            $0.hidesNothing
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

    @Test func aRequestLineOfItsPartsIsClean() {
        #expect(section { $0.requestLineIsClean })
        // Spaces libmicrohttpd skipped before the target: "GET   /a HTTP/1.1".
        let spaced = ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: 6, versionStart: 9, end: 17)
        #expect(section(requestLine: Array("GET\0  /a\0HTTP/1.1".utf8), parts: spaced) { $0.requestLineIsClean })
    }

    /// The URI log callback counted fewer bytes than the target holds: one it may not have, a
    /// NUL or a control, came first.
    @Test(arguments: [0, 1, 3])
    func aTargetNotWhollyAllowedIsRefused(targetBytesAllowed: Int) {
        #expect(!section(targetBytesAllowed: targetBytesAllowed) { $0.requestLineIsClean })
    }

    /// "GE\0T /a HTTP/1.1": the method libmicrohttpd hands over ends at the NUL, and the bytes
    /// up to the target are not its one NUL and spaces; a control in the method is refused too.
    @Test(arguments: [("GE\0T\0/a\0HTTP/1.1", 2, 5), ("G\u{1}T\0/a\0HTTP/1.1", 3, 4)])
    func aMethodWithAForbiddenByteIsRefused(line: String, methodEnd: Int, targetStart: Int) {
        let parts = ParsedHeaderSection.RequestLine(
            methodEnd: methodEnd, targetStart: targetStart, versionStart: targetStart + 3, end: targetStart + 11)
        #expect(!section(requestLine: Array(line.utf8), parts: parts) { $0.requestLineIsClean })
    }

    @Test(arguments: [
        ParsedHeaderSection.RequestLine(methodEnd: 0, targetStart: 4, versionStart: 7, end: 15),
        ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: 3, versionStart: 7, end: 15),
        ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: -1, versionStart: 7, end: 15),
        ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: 4, versionStart: 4, end: 15),
        ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: 4, versionStart: 7, end: 1000),
        ParsedHeaderSection.RequestLine(methodEnd: -1, targetStart: -1, versionStart: -1, end: -1),
        ParsedHeaderSection.RequestLine(methodEnd: 3, targetStart: 4, versionStart: Int.max / 2, end: Int.max / 2),
    ])
    func aRequestLineOutOfPlaceIsRefused(parts: ParsedHeaderSection.RequestLine) {
        #expect(!section(parts: parts) { $0.requestLineIsClean })
    }
}
