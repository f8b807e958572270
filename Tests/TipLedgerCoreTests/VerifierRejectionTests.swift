// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// One way a token can be wrong, with the code the verifier must reject it with.
struct RejectionScenario: Sendable, CustomTestStringConvertible {
    /// What is wrong, as a phrase.
    let name: String
    let expected: VerificationError.Code
    /// The kind to verify as; nil lets the verifier detect it (as `tipledger verify` does).
    var kind: PayloadKind? = nil
    /// The token and the verifier that must reject it.
    let build: @Sendable () throws -> (token: String, verifier: Verifier)

    var testDescription: String { "\(name) → \(expected.rawValue)" }

    init(
        _ name: String, _ expected: VerificationError.Code, as kind: PayloadKind? = nil,
        _ build: @escaping @Sendable () throws -> (token: String, verifier: Verifier)
    ) {
        self.name = name
        self.expected = expected
        self.kind = kind
        self.build = build
    }

    /// A scenario checked by the standard verifier (trusts `TestChains.standard`, accepts Sandbox and
    /// Production for `com.example.tips`, app Apple id 1234567890, clock at the reference time).
    init(
        _ name: String, _ expected: VerificationError.Code, as kind: PayloadKind? = nil,
        token: @escaping @Sendable () throws -> String
    ) {
        self.init(name, expected, as: kind) { (try token(), try TestChains.verifier()) }
    }
}

private let day: Int64 = 86_400_000
private let standard = TestChains.standard

private func signed(_ payload: String, pki: TestPKI = standard) throws -> String {
    try TestJWS.sign(payload, pki: pki)
}

private func signed(header: String, _ payload: String = TestPayloads.transaction()) throws -> String {
    try TestJWS.sign(header: header, payload: payload, key: standard.leafKey)
}

private let x5c = TestJWS.x5c(standard.chain)

extension RejectionScenario {
    static let all: [RejectionScenario] =
        sizeAndForm + header + chain + time + signature + online + payload + identity

    /// With online checks, statuses from a table instead of a responder (`TestRevocationChecker`).
    static let online: [RejectionScenario] = [
        RejectionScenario("a revoked leaf", .certificateRevoked) {
            let checker = TestRevocationChecker([(TestChains.standard.leaf, .revoked("since today"))])
            return (
                try signed(TestPayloads.transaction()),
                try TestChains.verifier(onlineChecks: OnlineChecks(mode: .strict, checker: checker))
            )
        },
        RejectionScenario("no answer about the intermediate, strict", .revocationUnavailable) {
            let checker = TestRevocationChecker([(TestChains.standard.intermediate, .unavailable("down"))])
            return (
                try signed(TestPayloads.transaction()),
                try TestChains.verifier(onlineChecks: OnlineChecks(mode: .strict, checker: checker))
            )
        },
    ]

    static let sizeAndForm: [RejectionScenario] = [
        RejectionScenario("a token one byte over 64 KiB", .tooLarge) {
            String(repeating: "a", count: VerificationPolicy.maximumTokenBytes + 1)
        },
        RejectionScenario("a correctly signed token over 64 KiB", .tooLarge) {
            try signed(
                TestPayloads.transaction(["padding": TestPayloads.quoted(String(repeating: "x", count: 50_000))]))
        },
        RejectionScenario("an empty token", .malformedJWS) { "" },
        RejectionScenario("two parts", .malformedJWS) {
            TestJWS.parts(try signed(TestPayloads.transaction()))[0...1].joined(separator: ".")
        },
        RejectionScenario("four parts", .malformedJWS) { try signed(TestPayloads.transaction()) + ".AAAA" },
        RejectionScenario("a padded base64 header", .malformedJWS) {
            var parts = TestJWS.parts(try signed(TestPayloads.transaction()))
            var header = Array(TestJWS.header(chain: standard.chain).utf8)
            // A length that is not a multiple of 3, so the standard encoding ends in "=".
            if header.count % 3 == 0 { header.append(0x20) }
            parts[0] = Base64.encode(header, alphabet: .standard)
            return parts.joined(separator: ".")
        },
        RejectionScenario("a header in the standard alphabet", .malformedJWS) {
            var parts = TestJWS.parts(try signed(TestPayloads.transaction()))
            parts[0] = parts[0].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "+"
            return parts.joined(separator: ".")
        },
        RejectionScenario("a payload with a stray character", .malformedJWS) {
            var parts = TestJWS.parts(try signed(TestPayloads.transaction()))
            parts[1] += "!"
            return parts.joined(separator: ".")
        },
        RejectionScenario("a signature that is not base64url", .malformedJWS) {
            try signed(TestPayloads.transaction()) + "="
        },
        RejectionScenario("a header that is not JSON", .malformedJWS) {
            TestJWS.compact(
                header: "alg=ES256", payload: TestPayloads.transaction(), signature: [UInt8](repeating: 1, count: 64))
        },
        RejectionScenario("a header that is a JSON string", .malformedJWS) {
            TestJWS.compact(
                header: "\"ES256\"", payload: TestPayloads.transaction(), signature: [UInt8](repeating: 1, count: 64))
        },
        RejectionScenario("a payload that is a JSON array", .malformedJWS) {
            try signed(header: TestJWS.header(chain: standard.chain), "[\(TestPayloads.transaction())]")
        },
        RejectionScenario("a payload that is not JSON", .malformedJWS) {
            try signed(header: TestJWS.header(chain: standard.chain), "{\"transactionId\":")
        },
        RejectionScenario("a payload with a duplicate member", .malformedJWS) {
            try signed(header: TestJWS.header(chain: standard.chain), #"{"price":990,"price":1}"#)
        },
    ]

    static let header: [RejectionScenario] = [
        RejectionScenario("alg HS256", .unsupportedAlgorithm) {
            try signed(header: TestJWS.header(alg: "HS256", x5c: x5c))
        },
        RejectionScenario("alg none with an empty signature", .unsupportedAlgorithm) {
            TestJWS.compact(
                header: TestJWS.header(alg: "none", x5c: x5c), payload: TestPayloads.transaction(), signature: [])
        },
        RejectionScenario("alg es256 in lowercase", .unsupportedAlgorithm) {
            try signed(header: TestJWS.header(alg: "es256", x5c: x5c))
        },
        RejectionScenario("alg ES384", .unsupportedAlgorithm) {
            try signed(header: TestJWS.header(alg: "ES384", x5c: x5c))
        },
        RejectionScenario("no alg", .unsupportedAlgorithm) {
            try signed(header: "{\"x5c\":[" + x5c.map { "\"\($0)\"" }.joined(separator: ",") + "]}")
        },
        RejectionScenario("alg as an array", .unsupportedAlgorithm) {
            try signed(header: "{\"alg\":[\"ES256\"],\"x5c\":[" + x5c.map { "\"\($0)\"" }.joined(separator: ",") + "]}")
        },
        RejectionScenario("a crit member", .unsupportedAlgorithm) {
            try signed(header: TestJWS.header(x5c: x5c, extra: #""crit":["b64"],"b64":false"#))
        },
        RejectionScenario("an empty crit member", .unsupportedAlgorithm) {
            try signed(header: TestJWS.header(x5c: x5c, extra: #""crit":[]"#))
        },
    ]

    static let chain: [RejectionScenario] = [
        RejectionScenario("no x5c", .invalidChainLength) { try signed(header: TestJWS.header(x5c: nil)) },
        RejectionScenario("x5c under another name", .invalidChainLength) {
            try signed(header: TestJWS.header(x5c: nil, extra: "\"x5cwrong\":[\"\(x5c[0])\"]"))
        },
        RejectionScenario("x5c as a string", .invalidChainLength) {
            try signed(header: TestJWS.header(x5c: nil, extra: "\"x5c\":\"\(x5c[0])\""))
        },
        RejectionScenario("an empty x5c", .invalidChainLength) { try signed(header: TestJWS.header(x5c: [])) },
        RejectionScenario("x5c with the leaf only, Xcode not accepted", .invalidChainLength) {
            try signed(header: TestJWS.header(x5c: [x5c[0]]))
        },
        RejectionScenario("x5c with two certificates", .invalidChainLength) {
            try signed(header: TestJWS.header(x5c: Array(x5c[0...1])))
        },
        RejectionScenario("x5c with four certificates", .invalidChainLength) {
            try signed(header: TestJWS.header(x5c: x5c + [x5c[2]]))
        },
        RejectionScenario("an x5c entry that is not base64", .invalidCertificate) {
            try signed(header: TestJWS.header(x5c: ["abc!"] + x5c[1...]))
        },
        RejectionScenario("an x5c entry with broken padding", .invalidCertificate) {
            try signed(
                header: TestJWS.header(x5c: [x5c[0], x5c[1].replacingOccurrences(of: "=", with: "") + "A", x5c[2]]))
        },
        RejectionScenario("an x5c entry that is base64 of garbage", .invalidCertificate) {
            try signed(
                header: TestJWS.header(x5c: [Base64.encode(Array("garbage".utf8), alphabet: .standard)] + x5c[1...]))
        },
        RejectionScenario("an x5c entry with trailing bytes", .invalidCertificate) {
            let padded = Base64.encode(standard.intermediate.derEncoded + [0x00], alphabet: .standard)
            return try signed(header: TestJWS.header(x5c: [x5c[0], padded, x5c[2]]))
        },
        RejectionScenario("an x5c entry that is a number", .invalidCertificate) {
            try signed(header: "{\"alg\":\"ES256\",\"x5c\":[\"\(x5c[0])\",42,\"\(x5c[2])\"]}")
        },
        RejectionScenario("an x5c[2] that is not a certificate", .invalidCertificate) {
            try signed(header: TestJWS.header(x5c: Array(x5c[0...1]) + ["AAAA"]))
        },
        RejectionScenario("a chain from another root", .untrustedChain) {
            try signed(TestPayloads.transaction(), pki: TestChains.other)
        },
        RejectionScenario("an intermediate from another PKI", .untrustedChain) {
            try signed(header: TestJWS.header(chain: [standard.leaf, TestChains.other.intermediate, standard.root]))
        },
        RejectionScenario("leaf and intermediate swapped", .untrustedChain) {
            try signed(header: TestJWS.header(chain: [standard.intermediate, standard.leaf, standard.root]))
        },
        RejectionScenario("a leaf issued by the root itself (a chain of two)", .untrustedChain) {
            let key = try PrivateKey.generate()
            let leaf = try Certificate.mint(
                CertificateTemplate(
                    subject: [("CN", "tipledger TEST Direct Leaf")], serialNumber: 9,
                    notBefore: standard.leaf.notBefore,
                    notAfter: standard.leaf.notAfter, isCA: false, keyUsage: "critical,digitalSignature",
                    markerOIDs: [AppleMarkerOID.receiptSigningLeaf]),
                subjectKey: key, issuer: (standard.root, standard.rootKey))
            return try TestJWS.sign(
                header: TestJWS.header(chain: [leaf, standard.root, standard.root]),
                payload: TestPayloads.transaction(),
                key: key)
        },
        RejectionScenario("an intermediate that is not a CA", .untrustedChain) {
            (
                try signed(TestPayloads.transaction(), pki: TestChains.intermediateNotCA),
                try TestChains.verifier(trusting: TestChains.intermediateNotCA)
            )
        },
        RejectionScenario("a leaf that is a CA", .untrustedChain) {
            (
                try signed(TestPayloads.transaction(), pki: TestChains.leafIsCA),
                try TestChains.verifier(trusting: TestChains.leafIsCA)
            )
        },
        RejectionScenario("a leaf with a P-384 key", .untrustedChain) {
            // ES256 cannot be made with the P-384 key; any P-256 signature will do, as the key is
            // refused before the signature is looked at.
            let pki = TestChains.leafP384
            let token = try TestJWS.sign(
                header: TestJWS.header(chain: pki.chain), payload: TestPayloads.transaction(), key: standard.leafKey)
            return (token, try TestChains.verifier(trusting: pki))
        },
        RejectionScenario("a leaf without the receipt-signing OID", .missingAppleOID) {
            (
                try signed(TestPayloads.transaction(), pki: TestChains.leafWithoutMarker),
                try TestChains.verifier(trusting: TestChains.leafWithoutMarker)
            )
        },
        RejectionScenario("an intermediate without the WWDR OID", .missingAppleOID) {
            (
                try signed(TestPayloads.transaction(), pki: TestChains.intermediateWithoutMarker),
                try TestChains.verifier(trusting: TestChains.intermediateWithoutMarker)
            )
        },
    ]

    static let time: [RejectionScenario] = {
        let pki = TestChains.shortLivedLeaf
        let reference = TestChains.referenceMilliseconds
        return [
            RejectionScenario("signed before the leaf's notBefore", .certificateNotValidAtSignedDate) {
                (
                    try signed(TestPayloads.transaction(["signedDate": String(reference - 20 * day)]), pki: pki),
                    try TestChains.verifier(trusting: pki)
                )
            },
            RejectionScenario("signed after the leaf's notAfter", .certificateNotValidAtSignedDate) {
                (
                    try signed(TestPayloads.transaction(["signedDate": String(reference + 20 * day)]), pki: pki),
                    try TestChains.verifier(trusting: pki)
                )
            },
            RejectionScenario("signed exactly at the leaf's notAfter", .certificateNotValidAtSignedDate) {
                (
                    try signed(TestPayloads.transaction(["signedDate": String(pki.leaf.notAfter * 1000)]), pki: pki),
                    try TestChains.verifier(trusting: pki)
                )
            },
            RejectionScenario("signed after the whole chain expired", .certificateNotValidAtSignedDate) {
                try signed(TestPayloads.transaction(["signedDate": String(reference + 400 * day)]))
            },
            RejectionScenario("signed in the year 9999", .certificateNotValidAtSignedDate) {
                try signed(TestPayloads.transaction(["signedDate": "253402300799999"]))
            },
            RejectionScenario("signed in the year 0", .certificateNotValidAtSignedDate) {
                try signed(TestPayloads.transaction(["signedDate": "-62167219200000"]))
            },
            RejectionScenario(
                "no signedDate, and the clock is after the leaf's notAfter", .certificateNotValidAtSignedDate
            ) {
                (
                    try signed(TestPayloads.transaction(["signedDate": nil]), pki: pki),
                    try TestChains.verifier(trusting: pki, now: reference + 20 * day)
                )
            },
            RejectionScenario(
                "a notification without signedDate, the clock before notBefore", .certificateNotValidAtSignedDate
            ) {
                (
                    try signed(TestPayloads.notification(["signedDate": nil]), pki: pki),
                    try TestChains.verifier(trusting: pki, now: reference - 20 * day)
                )
            },
            RejectionScenario("an app transaction created after the leaf's notAfter", .certificateNotValidAtSignedDate)
            {
                (
                    try signed(
                        TestPayloads.appTransaction(["receiptCreationDate": String(reference + 20 * day)]), pki: pki),
                    try TestChains.verifier(trusting: pki)
                )
            },
        ]
    }()

    static let signature: [RejectionScenario] = [
        RejectionScenario("a payload changed after signing", .badSignature) {
            TestJWS.replacingPayload(
                of: try signed(TestPayloads.transaction()), with: TestPayloads.transaction(["price": "99000"]))
        },
        // What a payload says is not read as the truth before its signature is checked
        // (docs/verification.md, steps 6 then 7): a swapped-in payload the model would refuse is still a bad signature.
        RejectionScenario("a payload of no known shape in place of a signed one", .badSignature) {
            TestJWS.replacingPayload(of: try signed(TestPayloads.transaction()), with: #"{"foo":1}"#)
        },
        RejectionScenario("a payload with signedDate as a string in place of a signed one", .badSignature) {
            TestJWS.replacingPayload(
                of: try signed(TestPayloads.transaction()),
                with: TestPayloads.transaction(["signedDate": "\"\(TestChains.referenceMilliseconds)\""]))
        },
        RejectionScenario("a header changed after signing", .badSignature) {
            var parts = TestJWS.parts(try signed(TestPayloads.transaction()))
            parts[0] = Base64.encode(Array(TestJWS.header(x5c: x5c, extra: "\"kid\":\"x\"").utf8), alphabet: .url)
            return parts.joined(separator: ".")
        },
        RejectionScenario("a flipped bit in S", .badSignature) {
            let token = try signed(TestPayloads.transaction())
            var signature = TestJWS.signature(of: token)
            signature[63] ^= 0x01
            return TestJWS.replacingSignature(of: token, with: signature)
        },
        RejectionScenario("R and S swapped", .badSignature) {
            let token = try signed(TestPayloads.transaction())
            let signature = TestJWS.signature(of: token)
            return TestJWS.replacingSignature(of: token, with: Array(signature[32...] + signature[..<32]))
        },
        RejectionScenario("a signature by another key", .badSignature) {
            try TestJWS.sign(
                header: TestJWS.header(chain: standard.chain), payload: TestPayloads.transaction(),
                key: TestChains.other.leafKey)
        },
        RejectionScenario("a 63-byte signature", .badSignature) {
            let token = try signed(TestPayloads.transaction())
            return TestJWS.replacingSignature(of: token, with: Array(TestJWS.signature(of: token).dropLast()))
        },
        RejectionScenario("a DER signature", .badSignature) {
            let token = try signed(TestPayloads.transaction())
            let der = try standard.leafKey.signDER(Array(TestJWS.parts(token)[0...1].joined(separator: ".").utf8))
            return TestJWS.replacingSignature(of: token, with: der)
        },
        RejectionScenario("a signature of zeros", .badSignature) {
            TestJWS.replacingSignature(
                of: try signed(TestPayloads.transaction()), with: [UInt8](repeating: 0, count: 64))
        },
        RejectionScenario("an empty signature", .badSignature) {
            TestJWS.replacingSignature(of: try signed(TestPayloads.transaction()), with: [])
        },
    ]

    static let payload: [RejectionScenario] = [
        RejectionScenario("price as a string", .invalidPayload) {
            try signed(TestPayloads.transaction(["price": "\"9.90\""]))
        },
        RejectionScenario("price with a fraction", .invalidPayload) {
            try signed(TestPayloads.transaction(["price": "9.9"]))
        },
        RejectionScenario("quantity over Int32", .invalidPayload) {
            try signed(TestPayloads.transaction(["quantity": "2147483648"]))
        },
        RejectionScenario("quantity as a boolean", .invalidPayload) {
            try signed(TestPayloads.transaction(["quantity": "true"]))
        },
        RejectionScenario("an unknown payload shape", .invalidPayload) {
            try signed(#"{"hello":"world"}"#)
        },
        RejectionScenario("signedDate as a string", .invalidPayload) {
            try signed(TestPayloads.transaction(["signedDate": "\"\(TestChains.referenceMilliseconds)\""]))
        },
        RejectionScenario("signedDate far beyond any calendar", .invalidPayload) {
            try signed(TestPayloads.transaction(["signedDate": "1e300"]))
        },
        RejectionScenario("signedDate just after the year 9999", .invalidPayload) {
            try signed(TestPayloads.transaction(["signedDate": "253402300800000"]))
        },
        RejectionScenario("signedDate just before the year 0", .invalidPayload) {
            try signed(TestPayloads.transaction(["signedDate": "-62167219200001"]))
        },
        RejectionScenario("signedDate far before any calendar", .invalidPayload) {
            try signed(TestPayloads.transaction(["signedDate": "-1e300"]))
        },
        RejectionScenario("a currency in lowercase", .invalidPayload) {
            try signed(TestPayloads.transaction(["currency": #""usd""#]))
        },
        RejectionScenario("a currency of two letters", .invalidPayload) {
            try signed(TestPayloads.transaction(["currency": #""US""#]))
        },
        RejectionScenario("a currency of four letters", .invalidPayload) {
            try signed(TestPayloads.transaction(["currency": #""USDT""#]))
        },
        RejectionScenario("a currency with a letter outside ASCII", .invalidPayload) {
            try signed(TestPayloads.transaction(["currency": #""ÉUR""#]))
        },
        RejectionScenario("a currency with an escape sequence", .invalidPayload) {
            try signed(TestPayloads.transaction(["currency": #""\u001b[2J""#]))
        },
        RejectionScenario("a currency with a NUL", .invalidPayload) {
            try signed(TestPayloads.transaction(["currency": #""US\u0000""#]))
        },
        RejectionScenario("an empty currency", .invalidPayload) {
            try signed(TestPayloads.transaction(["currency": #""""#]))
        },
        RejectionScenario("a renewal info's currency in lowercase", .invalidPayload) {
            try signed(TestPayloads.renewalInfo(["currency": #""eur""#, "renewalPrice": "4990"]))
        },
        RejectionScenario("appAccountToken that is not a UUID", .invalidPayload) {
            try signed(TestPayloads.transaction(["appAccountToken": "\"account-7\""]))
        },
        RejectionScenario("a notification without notificationUUID", .invalidPayload) {
            try signed(TestPayloads.notification(["notificationUUID": nil]))
        },
        RejectionScenario("notification data that is not an object", .invalidPayload) {
            try signed(TestPayloads.notification(["data": "\"com.example.tips\""]))
        },
        RejectionScenario("a nested signedTransactionInfo that is a number", .invalidPayload) {
            try signed(
                TestPayloads.notification(["data": TestPayloads.notificationData(["signedTransactionInfo": "1"])]))
        },
    ]

    static let identity: [RejectionScenario] = [
        RejectionScenario("another bundle id", .wrongBundleId) {
            try signed(TestPayloads.transaction(["bundleId": "\"com.example.other\""]))
        },
        RejectionScenario("the bundle id in another case", .wrongBundleId) {
            try signed(TestPayloads.transaction(["bundleId": "\"com.example.Tips\""]))
        },
        RejectionScenario("no bundle id", .wrongBundleId) { try signed(TestPayloads.transaction(["bundleId": nil])) },
        RejectionScenario("a notification for another bundle id", .wrongBundleId) {
            try signed(
                TestPayloads.notification(["data": TestPayloads.notificationData(["bundleId": "\"com.example\""])]))
        },
        RejectionScenario("a Production notification for another app Apple id", .wrongAppAppleId) {
            try signed(
                TestPayloads.notification([
                    "data": TestPayloads.notificationData(["appAppleId": "42", "environment": "\"Production\""])
                ]))
        },
        RejectionScenario("a Production notification without app Apple id", .wrongAppAppleId) {
            try signed(
                TestPayloads.notification([
                    "data": TestPayloads.notificationData(["appAppleId": nil, "environment": "\"Production\""])
                ]))
        },
        RejectionScenario("a Production app transaction for another app Apple id", .wrongAppAppleId) {
            try signed(TestPayloads.appTransaction(["appAppleId": "42", "receiptType": "\"Production\""]))
        },
        RejectionScenario(
            "a Production notification for another app Apple id, only Sandbox accepted", .wrongEnvironment
        ) {
            (
                try signed(
                    TestPayloads.notification([
                        "data": TestPayloads.notificationData(["appAppleId": "42", "environment": "\"Production\""])
                    ])),
                try TestChains.verifier(environments: [.sandbox])
            )
        },
        RejectionScenario("a Production transaction, only Sandbox accepted", .wrongEnvironment) {
            (
                try signed(TestPayloads.transaction(["environment": "\"Production\""])),
                try TestChains.verifier(environments: [.sandbox])
            )
        },
        RejectionScenario("a Sandbox notification, only Production accepted", .wrongEnvironment) {
            (try signed(TestPayloads.notification()), try TestChains.verifier(environments: [.production]))
        },
        RejectionScenario("no environment claim", .wrongEnvironment) {
            try signed(TestPayloads.transaction(["environment": nil]))
        },
        RejectionScenario("an unknown environment", .wrongEnvironment) {
            try signed(TestPayloads.transaction(["environment": "\"Staging\""]))
        },
        RejectionScenario("an environment in another case", .wrongEnvironment) {
            try signed(TestPayloads.transaction(["environment": "\"sandbox\""]))
        },
        RejectionScenario("an Xcode payload, Xcode not accepted", .wrongEnvironment) {
            try signed(TestPayloads.transaction(["environment": "\"Xcode\""]))
        },
        RejectionScenario("a Production renewal info, only Sandbox accepted", .wrongEnvironment) {
            (
                try signed(TestPayloads.renewalInfo(["environment": "\"Production\""])),
                try TestChains.verifier(environments: [.sandbox])
            )
        },
        RejectionScenario("a Production app transaction, only Sandbox accepted", .wrongEnvironment) {
            (
                try signed(TestPayloads.appTransaction(["receiptType": "\"Production\""])),
                try TestChains.verifier(environments: [.sandbox])
            )
        },
    ]
}

@Suite struct VerifierRejectionTests {
    @Test(arguments: RejectionScenario.all)
    func rejectionHasItsCode(_ scenario: RejectionScenario) throws {
        let (token, verifier) = try scenario.build()
        let code = verifier.rejection(of: token, as: scenario.kind)
        #expect(code == scenario.expected, "\(scenario.name): got \(code?.rawValue ?? "verified")")
    }

    @Test(arguments: RejectionScenario.all)
    func verifyReportsTheSameCodeWithItsAppleStatus(_ scenario: RejectionScenario) throws {
        guard scenario.kind == nil else { return }
        let (token, verifier) = try scenario.build()
        switch verifier.verify(token) {
        case .success:
            Issue.record("\(scenario.name): verified")
        case .failure(let error):
            #expect(error.code == scenario.expected, "\(scenario.name)")
            #expect(error.appleStatus == Self.table[scenario.expected]?.1, "\(scenario.name)")
            #expect(!error.message.isEmpty)
            let header = TestJWS.parts(token)[0]
            if header.count >= 40 {
                #expect(!error.message.contains(header.prefix(40)), "the message repeats the token")
            }
        }
    }

    /// An environment the policy does not accept is told apart from one missing or contradicted
    /// (for the CLI's hint to accept it).
    @Test func anUnacceptedEnvironmentIsToldApartFromAMissingOne() throws {
        func error(_ name: String) throws -> VerificationError? {
            let scenario = try #require(RejectionScenario.identity.first { $0.name == name })
            let (token, verifier) = try scenario.build()
            guard case .failure(let error) = verifier.verify(token) else { return nil }
            return error
        }
        #expect(try error("a Production transaction, only Sandbox accepted")?.isEnvironmentNotAccepted == true)
        #expect(try error("a Sandbox notification, only Production accepted")?.isEnvironmentNotAccepted == true)
        #expect(try error("no environment claim")?.isEnvironmentNotAccepted == false)
    }

    /// A value quoted from an unverified header cannot put escape sequences on a terminal.
    @Test func aQuotedHeaderValueHasItsControlCharactersEscaped() throws {
        let token = try signed(header: TestJWS.header(alg: #"\u001b]0;owned\u0007\u202e"#, x5c: x5c))

        guard case .failure(let error) = try TestChains.verifier().verify(token) else {
            Issue.record("verified")
            return
        }

        #expect(error.code == .unsupportedAlgorithm)
        #expect(error.message == #"alg must be ES256, found "\u{1B}]0;owned\u{7}\u{202E}""#)
    }

    @Test(arguments: [
        (
            "x5c with the leaf only, Xcode not accepted",
            "x5c has 1 certificate, expected 3; Xcode signs with one, accepted with the Xcode environment"
        ),
        ("x5c with two certificates", "x5c has 2 certificates, expected 3"),
    ])
    func aWrongChainLengthIsCounted(_ name: String, _ message: String) throws {
        let scenario = try #require(RejectionScenario.chain.first { $0.name == name })
        let (token, verifier) = try scenario.build()
        guard case .failure(let error) = verifier.verify(token) else {
            Issue.record("verified")
            return
        }
        #expect(error.message == message)
    }

    /// Each code's name in JSON and Apple's status name for it, as docs/verification.md lists them.
    static let table: [VerificationError.Code: (String, String)] = [
        .tooLarge: ("too_large", "INVALID_JWT_FORMAT"),
        .malformedJWS: ("malformed_jws", "INVALID_JWT_FORMAT"),
        .unsupportedAlgorithm: ("unsupported_algorithm", "INVALID_JWT_FORMAT"),
        .invalidChainLength: ("invalid_chain_length", "INVALID_CHAIN_LENGTH"),
        .invalidCertificate: ("invalid_certificate", "INVALID_CERTIFICATE"),
        .untrustedChain: ("untrusted_chain", "VERIFICATION_FAILURE"),
        .certificateNotValidAtSignedDate: ("certificate_not_valid_at_signed_date", "VERIFICATION_FAILURE"),
        .missingAppleOID: ("missing_apple_oid", "VERIFICATION_FAILURE"),
        .badSignature: ("bad_signature", "VERIFICATION_FAILURE"),
        .invalidPayload: ("invalid_payload", "INVALID_JWT_FORMAT"),
        .wrongBundleId: ("wrong_bundle_id", "INVALID_APP_IDENTIFIER"),
        .wrongAppAppleId: ("wrong_app_apple_id", "INVALID_APP_IDENTIFIER"),
        .wrongEnvironment: ("wrong_environment", "INVALID_ENVIRONMENT"),
        .certificateRevoked: ("certificate_revoked", "VERIFICATION_FAILURE"),
        .revocationUnavailable: ("revocation_unavailable", "RETRYABLE_VERIFICATION_FAILURE"),
    ]

    @Test func codesAndAppleStatusesAreTheSpecTable() {
        let table = Self.table
        #expect(table.count == VerificationError.Code.allCases.count)
        for code in VerificationError.Code.allCases {
            #expect(code.rawValue == table[code]?.0)
            #expect(code.appleStatus == table[code]?.1, "\(code.rawValue)")
            #expect(VerificationError(code, "m").appleStatus == table[code]?.1)
        }
    }

    @Test func everyErrorCodeOfTheSpecIsProduced() {
        let produced = Set(RejectionScenario.all.map(\.expected))
        for code in VerificationError.Code.allCases {
            #expect(produced.contains(code), "no scenario produces \(code.rawValue)")
        }
    }

    @Test func theUntamperedTokensOfTheScenariosVerify() throws {
        // The scenarios above change one thing each; without the change, the token verifies.
        let verifier = try TestChains.verifier()
        #expect(verifier.rejection(of: try signed(TestPayloads.transaction())) == nil)
        #expect(verifier.rejection(of: try signed(TestPayloads.notification())) == nil)
        #expect(verifier.rejection(of: try signed(TestPayloads.renewalInfo())) == nil)
        #expect(verifier.rejection(of: try signed(TestPayloads.appTransaction())) == nil)
        let pki = TestChains.shortLivedLeaf
        #expect(
            try TestChains.verifier(trusting: pki).rejection(of: signed(TestPayloads.transaction(), pki: pki)) == nil)
    }

    @Test func sizeLimitIsInclusiveAndCountsAfterTrimming() throws {
        let verifier = try TestChains.verifier()
        let limit = VerificationPolicy.maximumTokenBytes
        #expect(verifier.rejection(of: String(repeating: "a", count: limit)) == .malformedJWS)
        #expect(verifier.rejection(of: String(repeating: "a", count: limit + 1)) == .tooLarge)
        #expect(verifier.rejection(of: "\n " + String(repeating: "a", count: limit) + "\r\n") == .malformedJWS)
    }

    /// An `x5c` entry longer than any certificate Apple signs with is refused before it is
    /// decoded; one at the limit is decoded (and this one is then no certificate).
    @Test func anX5cEntryIsRefusedPastItsSizeLimitBeforeItIsDecoded() throws {
        let limit = VerificationPolicy.maximumCertificateBytes
        func message(entry: Int) throws -> String? {
            let token = try signed(header: TestJWS.header(x5c: [x5c[0], String(repeating: "A", count: entry), x5c[2]]))
            guard case .failure(let error) = try TestChains.verifier().verify(token) else { return nil }
            return "\(error.code.rawValue): \(error.message)"
        }
        #expect(try message(entry: limit)?.hasPrefix("invalid_certificate: x5c[1] is not a DER certificate") == true)
        #expect(
            try message(entry: limit + 4)
                == "invalid_certificate: x5c[1] is \(limit + 4) bytes; an x5c certificate is at most \(limit)")
    }

    @Test func surroundingWhitespaceIsTrimmedAndNothingElseIsRepaired() throws {
        let verifier = try TestChains.verifier()
        let token = try signed(TestPayloads.transaction())
        let verified = try verifier.verifyTransaction(" \t" + token + "\r\n")
        #expect(verified.jws == token)
        #expect(verifier.rejection(of: token.replacingOccurrences(of: ".", with: " . ")) == .malformedJWS)
        let parts = TestJWS.parts(token)
        #expect(verifier.rejection(of: parts[0] + ".\n" + parts[1] + "." + parts[2]) == .malformedJWS)
    }
}

@Suite struct MissingTransactionIdTests {
    @Test func aTransactionWithoutTransactionIdVerifiesAsApplesModelAllows() throws {
        // Apple's model makes every field optional (its `transactionInfo` mock has no id); the
        // verifier accepts it and the ledger is the one to refuse recording it.
        let token = try JWSSigner(pki: TestChains.standard).sign(
            payload: Array(TestPayloads.transaction(["transactionId": nil]).utf8))
        let verified = try TestChains.verifier().verifyTransaction(token)
        #expect(verified.transactionId == nil)
        #expect(verified.environment == .sandbox)
    }
}

/// The catalogue the CLI and HTTP tests draw on: one token per code, for each kind that can
/// carry it, rejected with exactly that code.
@Suite struct RejectedTokenCatalogueTests {
    @Test(arguments: TestChains.offlineCodes)
    func everyCodeHasATokenRejectedWithIt(_ code: VerificationError.Code) throws {
        let transaction = try TestChains.rejectedToken(code)
        let notification = try #require(try TestChains.rejectedToken(code, notification: true))
        if let transaction {
            #expect(TestChains.rejectionVerifier.rejection(of: transaction) == code, "transaction")
        } else {
            #expect(code == .wrongAppAppleId)
        }
        #expect(TestChains.rejectionVerifier.rejection(of: notification) == code, "notification")
    }
}
