// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerCrypto

/// One token per error code of docs/verification.md, for checking that every code comes out of every
/// door (the verifier, `tipledger verify`, the HTTP routes) as it is.
extension TestChains {
    /// The roots a verifier must trust for `rejectedToken` to be rejected with its code: the
    /// standard one, and that of `leafWithoutMarker`, whose chain is trusted but lacks the
    /// leaf's marker OID.
    public static let rejectionRoots = [standard.root, leafWithoutMarker.root]

    /// The standard verifier's settings, trusting `rejectionRoots`.
    public static let rejectionVerifier: Verifier = {
        do {
            return Verifier(
                trustStore: try TrustStore(roots: rejectionRoots),
                policy: VerificationPolicy(
                    bundleIds: ["com.example.tips"], environments: [.sandbox, .production], appAppleId: appAppleId),
                clock: .fixed(AppleDate(wholeMilliseconds: referenceMilliseconds)))
        } catch {
            preconditionFailure("cannot make the rejection verifier: \(error)")
        }
    }()

    /// The codes a verifier gives without online checks: all but those of `RevocationCheck`
    /// (see `TestRevocationChecker` for those).
    public static let offlineCodes = VerificationError.Code.allCases.filter {
        $0 != .certificateRevoked && $0 != .revocationUnavailable
    }

    /// A token `rejectionVerifier` rejects with `code`: a transaction, or a notification when
    /// `notification` is true (`wrong_app_apple_id` is a notification's only). Nil for a code
    /// that kind cannot carry, and for the codes of online checks, which `rejectionVerifier`
    /// does not make.
    public static func rejectedToken(_ code: VerificationError.Code, notification: Bool = false) throws -> String? {
        let payload = notification ? TestPayloads.notification : TestPayloads.transaction
        let chain = TestJWS.x5c(standard.chain)
        func signed(header: String) throws -> String {
            try TestJWS.sign(header: header, payload: payload([:]), key: standard.leafKey)
        }
        switch code {
        case .tooLarge:
            return String(repeating: "a", count: VerificationPolicy.maximumTokenBytes + 1)
        case .malformedJWS:
            return "not.a token"
        case .unsupportedAlgorithm:
            return try signed(header: TestJWS.header(alg: "HS256", x5c: chain))
        case .invalidChainLength:
            return try signed(header: TestJWS.header(x5c: Array(chain.prefix(2))))
        case .invalidCertificate:
            return try signed(header: TestJWS.header(x5c: [chain[0], "bm90IGEgY2VydGlmaWNhdGU=", chain[2]]))
        case .untrustedChain:
            return try TestJWS.sign(payload([:]), pki: other)
        case .certificateNotValidAtSignedDate:
            return try TestJWS.sign(payload(["signedDate": String((standard.leaf.notAfter + 86_400) * 1000)]))
        case .missingAppleOID:
            return try TestJWS.sign(payload([:]), pki: leafWithoutMarker)
        case .badSignature:
            let valid = try TestJWS.sign(payload([:]))
            var signature = TestJWS.signature(of: valid)
            signature[20] ^= 0x04
            return TestJWS.replacingSignature(of: valid, with: signature)
        case .invalidPayload:
            let field = notification ? "notificationUUID" : "price"
            return try TestJWS.sign(payload([field: "[1]"]))
        case .wrongBundleId:
            let data =
                notification ? ["data": TestPayloads.notificationData(["bundleId": #""com.example.other""#])] : [:]
            return try TestJWS.sign(notification ? payload(data) : payload(["bundleId": #""com.example.other""#]))
        case .wrongAppAppleId:
            guard notification else { return nil }
            // The app Apple id is checked in Production only.
            let data = TestPayloads.notificationData(["appAppleId": "42", "environment": #""Production""#])
            return try TestJWS.sign(payload(["data": data]))
        case .wrongEnvironment:
            let data = notification ? ["data": TestPayloads.notificationData(["environment": #""Xcode""#])] : [:]
            return try TestJWS.sign(notification ? payload(data) : payload(["environment": #""Xcode""#]))
        case .certificateRevoked, .revocationUnavailable:
            return nil
        }
    }
}
