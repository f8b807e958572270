// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore

@Suite struct Base64Tests {
    // MARK: Known values (RFC 4648, section 10)

    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648VectorsEncodeAndDecode(_ plain: String, _ encoded: String) {
        let bytes = Array(plain.utf8)
        #expect(Base64.encode(bytes, alphabet: .standard) == encoded)
        #expect(Base64.decode(encoded, alphabet: .standard) == bytes)
        let unpadded = encoded.replacingOccurrences(of: "=", with: "")
        #expect(Base64.encode(bytes, alphabet: .url) == unpadded)
        #expect(Base64.decode(unpadded, alphabet: .url) == bytes)
    }

    @Test func theAlphabetsDifferOnlyInTheirLastTwoSymbols() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf]
        #expect(Base64.encode(bytes, alphabet: .standard) == "+/+/")
        #expect(Base64.encode(bytes, alphabet: .url) == "-_-_")
        #expect(Base64.decode("+/+/", alphabet: .standard) == bytes)
        #expect(Base64.decode("-_-_", alphabet: .url) == bytes)
        #expect(Base64.decode("+/+/", alphabet: .url) == nil)
        #expect(Base64.decode("-_-_", alphabet: .standard) == nil)
    }

    // MARK: Padding

    @Test(arguments: ["Zg", "Zg=", "Zm8", "Zg===", "Z===", "====", "=Zg=", "Zg==Zg==", "Zm=8", "Zg==="])
    func standardBase64NeedsExactPadding(_ text: String) {
        #expect(Base64.decode(text, alphabet: .standard) == nil, "\(text)")
    }

    @Test(arguments: ["Zg==", "Zm8=", "Zg=", "Zg", "="])
    func base64urlHasNoPadding(_ text: String) {
        let expected: [UInt8]? = text.contains("=") ? nil : Array(Data(base64Encoded: text + "==")!)
        #expect(Base64.decode(text, alphabet: .url) == expected, "\(text)")
    }

    @Test(arguments: ["Z", "Zm9vY", "A", "AAAAA"])
    func aSingleCharacterFinalGroupIsRefused(_ text: String) {
        #expect(Base64.decode(text, alphabet: .url) == nil)
        #expect(Base64.decode(text, alphabet: .standard) == nil)
    }

    // MARK: Canonical form

    @Test(arguments: [("Zh==", "Zh"), ("Zm9=", "Zm9"), ("QR==", "QR"), ("QUJ=", "QUJ"), ("//==", "//")])
    func nonZeroTrailingBitsAreRefused(_ standard: String, _ url: String) {
        // Each decodes to the same bytes as a canonical form under a lenient decoder.
        #expect(Base64.decode(standard, alphabet: .standard) == nil, "\(standard)")
        #expect(Base64.decode(url, alphabet: .url) == nil, "\(url)")
    }

    @Test(arguments: [" Zm9v", "Zm9v ", "Zm 9v", "Zm9v\n", "Zm\r\n9v", "Zm9v\t", "Zm.v", "Zm9v!", "Zm\u{e9}v"])
    func whitespaceAndForeignCharactersAreRefused(_ text: String) {
        #expect(Base64.decode(text, alphabet: .standard) == nil, "\(text)")
        #expect(Base64.decode(text, alphabet: .url) == nil, "\(text)")
    }

    @Test func highBytesAreNotSymbols() {
        let bytes: [UInt8] = [0x5a, 0x6d, 0x39, 0xf6]
        #expect(bytes.withUnsafeBufferPointer { Base64.decode($0, alphabet: .url) } == nil)
        #expect(bytes.withUnsafeBufferPointer { Base64.decode($0, alphabet: .standard) } == nil)
    }

    // MARK: Round trips

    @Test func randomDataRoundTripsInBothAlphabets() {
        var generator = SeededGenerator(seed: 0x7469_706c_6564_6765)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let standard = Base64.encode(bytes, alphabet: .standard)
            #expect(standard == Data(bytes).base64EncodedString(), "length \(length)")
            #expect(Base64.decode(standard, alphabet: .standard) == bytes, "length \(length)")
            let url = Base64.encode(bytes, alphabet: .url)
            #expect(!url.contains("=") && !url.contains("+") && !url.contains("/"))
            #expect(url.utf8.count == (length * 4 + 2) / 3)
            #expect(Base64.decode(url, alphabet: .url) == bytes, "length \(length)")
        }
    }

    @Test func decodingAcceptsStringSlices() {
        let text = "xxZm9vYmFyxx"
        let slice = text.dropFirst(2).dropLast(2)
        #expect(Base64.decode(slice, alphabet: .standard) == Array("foobar".utf8))
    }
}
