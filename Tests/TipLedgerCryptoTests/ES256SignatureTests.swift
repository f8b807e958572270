// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCrypto

@Suite struct ES256SignatureTests {
    /// `r‖s` with each half given as 32 bytes.
    private func raw(r: [UInt8], s: [UInt8]) -> [UInt8] { r + s }

    private func scalar(_ bytes: [UInt8]) -> [UInt8] { [UInt8](repeating: 0, count: 32 - bytes.count) + bytes }

    @Test func signaturesFromOpenSSLRoundTripBetweenRawAndDER() throws {
        let key = try PrivateKey.generate()
        for index in 0..<16 {
            let der = try key.signDER(Array("message \(index)".utf8))
            let raw = try #require(ES256Signature.raw(fromDER: der))
            #expect(raw.count == 64)
            #expect(ES256Signature.der(fromRaw: raw) == der)
        }
    }

    @Test func smallIntegersAreEncodedMinimally() throws {
        let raw = raw(r: scalar([0x01]), s: scalar([0x7f]))
        let der = try #require(ES256Signature.der(fromRaw: raw))
        #expect(der == [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x7f])
        #expect(ES256Signature.raw(fromDER: der) == raw)
    }

    @Test func integersWithTheHighBitSetGainALeadingZero() throws {
        let high = [UInt8](repeating: 0xff, count: 32)
        let der = try #require(ES256Signature.der(fromRaw: high + high))
        #expect(der.count == 2 + 2 * (2 + 33))
        #expect(Array(der[0..<5]) == [0x30, 0x46, 0x02, 0x21, 0x00])
        #expect(ES256Signature.raw(fromDER: der) == high + high)
    }

    @Test(arguments: [0, 1, 32, 63, 65, 72, 96])
    func rawSignaturesOfAnyOtherLengthThan64AreRefused(_ length: Int) {
        #expect(ES256Signature.der(fromRaw: [UInt8](repeating: 0x11, count: length)) == nil)
    }

    @Test func derWithTrailingBytesIsRefused() throws {
        let der = try PrivateKey.generate().signDER(Array("payload".utf8))
        #expect(ES256Signature.raw(fromDER: der) != nil)
        #expect(ES256Signature.raw(fromDER: der + [0x00]) == nil)
        #expect(ES256Signature.raw(fromDER: der + [0x30, 0x00]) == nil)
    }

    @Test func derThatIsNotASignatureIsRefused() {
        #expect(ES256Signature.raw(fromDER: []) == nil)
        #expect(ES256Signature.raw(fromDER: [0x30, 0x00]) == nil)
        #expect(ES256Signature.raw(fromDER: [0x02, 0x01, 0x01]) == nil)
        #expect(ES256Signature.raw(fromDER: Array("not a signature".utf8)) == nil)
        // SEQUENCE { INTEGER 1 } has no s.
        #expect(ES256Signature.raw(fromDER: [0x30, 0x03, 0x02, 0x01, 0x01]) == nil)
    }

    @Test func derIntegersLongerThan32BytesAreRefused() {
        // r = 2^256 (33 bytes: 01 00 … 00) does not fit the raw form.
        let r: [UInt8] = [0x02, 0x21, 0x01] + [UInt8](repeating: 0, count: 32)
        let s: [UInt8] = [0x02, 0x01, 0x01]
        let der: [UInt8] = [0x30, UInt8(r.count + s.count)] + r + s
        #expect(ES256Signature.raw(fromDER: der) == nil)
    }

    @Test func aConvertedSignatureStillVerifies() throws {
        let key = try PrivateKey.generate()
        let message = Array("header.payload".utf8)
        let raw = try key.signES256(message)
        let publicKey = try key.publicKey
        #expect(publicKey.isValidES256Signature(raw, over: message))
        let der = try #require(ES256Signature.der(fromRaw: raw))
        #expect(message.withUnsafeBytes { publicKey.isValidSignature(der: der, over: $0) })
        // The DER form is not a valid ES256 (raw) signature.
        #expect(!publicKey.isValidES256Signature(der, over: message))
    }
}
