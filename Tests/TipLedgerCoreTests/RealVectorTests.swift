// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// One entry of `real/manifest.json`: a real (or derived) App Store JWS and its expected outcome.
struct RealVector: Sendable, CustomTestStringConvertible {
    let file: String
    let kind: String
    let environment: String?
    let bundleId: String?
    let signedDate: Int64?
    /// `valid` or `invalid`.
    let expected: String
    /// What a verifier with identity checks says when it differs from `expected`.
    let expectedWithIdentityChecks: String?
    let notificationType: String?
    let subtype: String?

    var testDescription: String { file }

    static func load() -> [RealVector] {
        guard let manifest = try? Fixtures.json("real/manifest.json") as? [String: Any],
            let vectors = manifest["vectors"] as? [[String: Any]]
        else { return [] }
        return vectors.compactMap { entry in
            guard let file = entry["file"] as? String, let kind = entry["kind"] as? String,
                let expected = entry["expected"] as? String
            else { return nil }
            return RealVector(
                file: file, kind: kind, environment: entry["environment"] as? String,
                bundleId: entry["bundleId"] as? String, signedDate: (entry["signedDate"] as? Int).map(Int64.init),
                expected: expected, expectedWithIdentityChecks: entry["expected_with_identity_checks"] as? String,
                notificationType: entry["notificationType"] as? String, subtype: entry["subtype"] as? String)
        }
    }

    /// Loaded once per process.
    static let all = load()

    /// The code tipledger must reject each invalid vector with (and the one valid vector whose
    /// payload lacks an environment claim), under the policy `policy(for:)` gives.
    static let rejections: [String: VerificationError.Code] = [
        // Chain and signature are valid at signedDate; no environment claim, as Apple's library.
        "transaction-2021-noenv-01.jws": .wrongEnvironment,
        // No signedDate: checked at the clock (2026-11-29), long after the leaf expired in 2023.
        "sandbox-notification-nosigneddate-01.jws": .certificateNotValidAtSignedDate,
        // Xcode accepted, but its certificate is not in the trust store.
        "xcode-signed-transaction.jws": .untrustedChain,
        "xcode-signed-app-transaction.jws": .untrustedChain,
        // Apple's library test CA, not Apple Root CA - G3.
        "mock-ca-test-notification.jws": .untrustedChain,
        "derived-tampered-payload.jws": .badSignature,
        "derived-flipped-signature.jws": .badSignature,
        "derived-swapped-signature.jws": .badSignature,
        // 63 bytes, and the same (r, s) DER-encoded in 72 bytes: only raw 64-byte R‖S is ES256.
        "derived-truncated-signature.jws": .badSignature,
        "derived-der-signature.jws": .badSignature,
        "derived-x5c-missing-intermediate.jws": .invalidChainLength,
        "derived-alg-none.jws": .unsupportedAlgorithm,
    ]

    /// 2026-11-29T00:00:00Z: the fixed "now" of these tests, after every 2021–2023 leaf expired.
    static let now = AppleDate(wholeMilliseconds: 1_795_910_400_000)

    func token() throws -> String { try Fixtures.text("real/\(file)") }

    /// The Apple id of each app whose notifications are vectors, as its verifier is configured:
    /// written out here, so a token that carried another id would fail rather than set the
    /// expectation it is checked against.
    static let appAppleIds: [String: Int64] = [
        "mock-ca-test-notification.jws": 1234,
        "production-notification-01.jws": 1_601_830_814,
        "sandbox-notification-01.jws": 1_470_168_868,
        "sandbox-notification-02.jws": 1_470_168_868,
        "sandbox-notification-03.jws": 1_470_168_868,
        "sandbox-notification-04.jws": 1_470_168_868,
        "sandbox-notification-05.jws": 1_470_168_868,
    ]

    /// Its own bundle id and environment accepted, its app's Apple id (`appAppleIds`), Apple
    /// Root CA - G3 trusted, the clock at `now`.
    func verifier(
        trusting roots: [Certificate] = [TrustAnchors.appleRootCAG3], environments: Set<AppStoreEnvironment>? = nil
    )
        throws -> Verifier
    {
        let accepted =
            environments ?? environment.flatMap(AppStoreEnvironment.init(rawValue:)).map { [$0] } ?? [
                .sandbox, .production,
            ]
        return Verifier(
            trustStore: try TrustStore(roots: roots),
            policy: VerificationPolicy(
                bundleIds: [bundleId ?? "com.example.unused"], environments: accepted,
                appAppleId: Self.appAppleIds[file]),
            clock: .fixed(RealVector.now))
    }
}

@Suite struct RealVectorTests {
    @Test func manifestListsEveryFile() throws {
        #expect(RealVector.all.count == 28)
        #expect(RealVector.all.filter { $0.expected == "valid" }.count == 17)
        for vector in RealVector.all where vector.expected != "valid" || vector.expectedWithIdentityChecks != nil {
            #expect(RealVector.rejections[vector.file] != nil, "no expected code for \(vector.file)")
        }
        #expect(Set(RealVector.rejections.keys).isSubset(of: Set(RealVector.all.map(\.file))))
    }

    @Test(arguments: RealVector.all)
    func realVectorHasItsExpectedOutcome(_ vector: RealVector) throws {
        let verifier = try vector.verifier()
        let result = verifier.verify(try vector.token())
        if let code = RealVector.rejections[vector.file] {
            guard case .failure(let error) = result else {
                Issue.record("\(vector.file) verified; expected \(code.rawValue)")
                return
            }
            #expect(error.code == code, "\(vector.file): \(error)")
            return
        }
        #expect(vector.expected == "valid")
        guard case .success(let verified) = result else {
            Issue.record("\(vector.file) was rejected: \(result)")
            return
        }
        #expect(vector.kind.hasPrefix(kindName(verified.kind)), "\(vector.file) verified as \(verified.kind)")
        #expect(verified.environment.rawValue == vector.environment)
        let signedDate = try #require(vector.signedDate)
        switch verified {
        case .transaction(let transaction):
            #expect(transaction.effectiveDate.wholeMilliseconds == signedDate)
            #expect(transaction.payload.bundleId == vector.bundleId)
        case .renewalInfo(let renewal):
            #expect(renewal.effectiveDate.wholeMilliseconds == signedDate)
        case .notification(let notification):
            #expect(notification.effectiveDate.wholeMilliseconds == signedDate)
            #expect(notification.rawNotificationType == vector.notificationType)
            #expect(notification.payload.rawSubtype == vector.subtype)
            // Every nested signed payload was verified too.
            #expect((notification.payload.data?.signedTransactionInfo != nil) == (notification.transaction != nil))
            #expect((notification.payload.data?.signedRenewalInfo != nil) == (notification.renewalInfo != nil))
        case .appTransaction:
            Issue.record("no real app transaction is expected to verify")
        }
    }

    private func kindName(_ kind: PayloadKind) -> String {
        switch kind {
        case .transaction: "transaction"
        case .notification: "notification"
        case .renewalInfo: "renewal info"
        case .appTransaction: "app transaction"
        }
    }

    @Test func refundNotificationCarriesAVerifiedRefundedTransaction() throws {
        let vector = try #require(RealVector.all.first { $0.file == "sandbox-notification-03.jws" })
        let notification = try vector.verifier().verifyNotification(try vector.token())
        #expect(notification.payload.notificationType == .refund)
        let transaction = try #require(notification.transaction)
        #expect(transaction.transactionId == "2000001032604840")
        #expect(transaction.payload.originalTransactionId == "2000001024993299")
        #expect(transaction.payload.revocationDate == AppleDate(wholeMilliseconds: 1_760_591_999_000))
        #expect(transaction.payload.rawRevocationReason == 0)
        #expect(transaction.payload.price == 1_990 && transaction.payload.currency == "AUD")
        #expect(transaction.environment == .sandbox)
        let renewal = try #require(notification.renewalInfo)
        #expect(renewal.payload.originalTransactionId == "2000001024993299")
        // The refunded transaction is also its own vector, byte for byte.
        #expect(transaction.jws == (try Fixtures.text("real/sandbox-transaction-05-revoked.jws")))
    }

    @Test func productionNotificationCarriesItsVerifiedTransaction() throws {
        let vector = try #require(RealVector.all.first { $0.file == "production-notification-01.jws" })
        let notification = try vector.verifier().verifyNotification(try vector.token())
        #expect(notification.payload.data?.appAppleId == 1_601_830_814)
        #expect(notification.environment == .production)
        #expect(notification.transaction?.transactionId == "510001261072921")
        #expect(notification.transaction?.jws == (try Fixtures.text("real/production-transaction-01.jws")))
        // Another app's Apple id is refused.
        let other = Verifier(
            trustStore: try TrustStore(roots: [TrustAnchors.appleRootCAG3]),
            policy: VerificationPolicy(bundleIds: ["com.jrjj.keysns"], environments: [.production], appAppleId: 1),
            clock: .fixed(RealVector.now))
        #expect(other.rejection(of: try vector.token()) == .wrongAppAppleId)
    }

    @Test func undatedNotificationVerifiesWhileItsLeafWasValid() throws {
        let vector = try #require(RealVector.all.first { $0.file == "sandbox-notification-nosigneddate-01.jws" })
        // 2022-06-01: inside the 2021–2023 leaf's validity.
        let verifier = Verifier(
            trustStore: try TrustStore(roots: [TrustAnchors.appleRootCAG3]),
            policy: VerificationPolicy(bundleIds: ["com.audaos.audarecorder"], environments: [.sandbox]),
            clock: .fixed(AppleDate(wholeMilliseconds: 1_654_041_600_000)))
        let notification = try verifier.verifyNotification(try vector.token())
        #expect(notification.effectiveDate == AppleDate(wholeMilliseconds: 1_654_041_600_000))
        #expect(notification.transaction?.transactionId == "2000000004047119")
        #expect(notification.transaction?.effectiveDate == AppleDate(wholeMilliseconds: 1_646_387_008_254))
        #expect(notification.renewalInfo?.effectiveDate == AppleDate(wholeMilliseconds: 1_646_387_008_228))
    }

    @Test(arguments: ["xcode-signed-transaction.jws", "xcode-signed-app-transaction.jws"])
    func xcodeFileNeedsXcodeAcceptedAndItsCertificateTrusted(_ file: String) throws {
        let vector = try #require(RealVector.all.first { $0.file == file })
        let token = try vector.token()
        // Xcode not accepted: a single certificate is not a chain.
        #expect(try vector.verifier(environments: [.production, .sandbox]).rejection(of: token) == .invalidChainLength)
        // Xcode accepted, Apple's root trusted, the Xcode certificate not.
        #expect(try vector.verifier().rejection(of: token) == .untrustedChain)
        // Xcode accepted and the single x5c certificate itself trusted.
        let xcode = try TestJWS.xcodeCertificate(of: token)
        #expect(xcode.subject.contains("StoreKit Testing in Xcode"))
        let verified = try vector.verifier(trusting: [TrustAnchors.appleRootCAG3, xcode]).verifyPayload(token, as: nil)
        #expect(verified.environment == .xcode)
    }

    @Test(arguments: RealVector.rejections.keys.sorted().filter { $0.hasPrefix("derived-") })
    func derivedVectorIsRejectedWhenVerifiedAsATransaction(_ file: String) throws {
        let vector = try #require(RealVector.all.first { $0.file == file })
        #expect(
            try vector.verifier().rejection(of: try vector.token(), as: .transaction) == RealVector.rejections[file])
    }

    @Test func oneVerifierWithACacheVerifiesEveryValidVector() throws {
        let valid = RealVector.all.filter { $0.expected == "valid" && RealVector.rejections[$0.file] == nil }
        let verifier = Verifier(
            trustStore: try TrustStore(roots: [TrustAnchors.appleRootCAG3]),
            policy: VerificationPolicy(
                bundleIds: Set(valid.compactMap(\.bundleId)), environments: [.sandbox, .production]),
            clock: .fixed(RealVector.now))
        for round in 1...2 {
            for vector in valid {
                #expect(verifier.rejection(of: try vector.token()) == nil, "\(vector.file), round \(round)")
            }
        }
        // The cached 2025 chain does not make an edited token verify.
        let derived = try #require(RealVector.all.first { $0.file == "derived-tampered-payload.jws" })
        #expect(verifier.rejection(of: try derived.token()) == .badSignature)
    }
}
