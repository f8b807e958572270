// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerCore

/// The verifier settings of one case of `apple-library/expectations.json`.
struct LibraryVerifierSettings: Sendable {
    let trustedRoots: [String]
    let bundleId: String
    let appAppleId: Int64?
    let environment: AppStoreEnvironment
    let now: AppleDate

    func verifier(extraRoots: [Certificate] = []) throws -> Verifier {
        let roots = try trustedRoots.map { try Fixtures.appleLibraryCertificate($0) } + extraRoots
        return Verifier(
            trustStore: try TrustStore(roots: roots),
            policy: VerificationPolicy(bundleIds: [bundleId], environments: [environment], appAppleId: appAppleId),
            clock: .fixed(now))
    }
}

/// One `jwsCases` entry: a JWS from the library's test data, how to decode it, and the verdict.
struct LibraryJWSCase: Sendable, CustomTestStringConvertible {
    let id: String
    let file: String?
    let literal: String?
    let decodeAs: String
    let settings: LibraryVerifierSettings?
    let valid: Bool
    /// Expected decoded fields (`data.bundleId` for nested ones), as JSON.
    let fields: JSONObject
    /// The expected error name per language (`swift`, `python`, `java`, `node`).
    let errorNames: [String: String]

    var testDescription: String { id }

    func token() throws -> String {
        if let literal { return literal }
        return try Fixtures.text("apple-library/\(try #require(file))")
    }
}

/// One `chainCases` entry: an `x5c` built from certificate files, and the verdict.
struct LibraryChainCase: Sendable, CustomTestStringConvertible {
    let id: String
    /// Certificate paths under `apple-library/`, or `<literal: text>` for a raw entry.
    let x5c: [String]
    let trustedRoots: [String]
    let effectiveDate: AppleDate
    let valid: Bool
    let leafPublicKeySPKIBase64: String?

    var testDescription: String { id }
}

/// `apple-library/expectations.json`, read with the project's JSON parser (exact numbers).
enum LibraryExpectations {
    /// Decoding kinds Apple's libraries test that are not signed payloads: receipts (StoreKit 1
    /// transaction receipts and PKCS#7 app receipts) carry no JWS and tipledger does not read
    /// them, so those cases are out of scope and skipped.
    static let outOfScopeKinds: Set<String> = ["legacyTransactionReceipt", "appReceipt"]

    static let document: JSONObject = {
        guard let bytes = try? Fixtures.bytes("apple-library/expectations.json"),
            let members = (try? JSONParser.parse(bytes))?.objectValue
        else { return [:] }
        return members
    }()

    static func array(_ name: String) -> [JSONObject] {
        guard case .array(let entries)? = document[name] else { return [] }
        return entries.compactMap(\.objectValue)
    }

    static func settings(_ verifier: JSONValue?) -> LibraryVerifierSettings? {
        guard let verifier = verifier?.objectValue, let bundleId = verifier["bundleId"]?.stringValue,
            let environment = verifier["environment"]?.stringValue.flatMap(AppStoreEnvironment.init(rawValue:)),
            let now = verifier["now"]?.stringValue.flatMap(AppleDate.parse)
        else { return nil }
        var appAppleId: Int64?
        if case .integer(let id)? = verifier["appAppleId"] { appAppleId = id }
        return LibraryVerifierSettings(
            trustedRoots: strings(verifier["trustedRoots"]), bundleId: bundleId, appAppleId: appAppleId,
            environment: environment, now: now)
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let elements)? = value else { return [] }
        return elements.compactMap(\.stringValue)
    }

    /// Every JWS case, receipts included.
    static let allJWSCases: [LibraryJWSCase] = array("jwsCases").compactMap { entry in
        guard let id = entry["id"]?.stringValue, let decodeAs = entry["decodeAs"]?.stringValue,
            let input = entry["input"]?.objectValue, let expect = entry["expect"]?.objectValue
        else { return nil }
        var errorNames: [String: String] = [:]
        for (language, name) in expect["error"]?.objectValue ?? [:] { errorNames[language] = name.stringValue }
        return LibraryJWSCase(
            id: id, file: input["file"]?.stringValue, literal: input["literal"]?.stringValue, decodeAs: decodeAs,
            settings: settings(entry["verifier"]), valid: expect["valid"] == .bool(true),
            fields: expect["fields"]?.objectValue ?? [:], errorNames: errorNames)
    }

    /// The JWS cases tipledger verifies: all but the receipts.
    static let jwsCases = allJWSCases.filter { !outOfScopeKinds.contains($0.decodeAs) }

    static let chainCases: [LibraryChainCase] = array("chainCases").compactMap { entry in
        guard let id = entry["id"]?.stringValue, let expect = entry["expect"]?.objectValue,
            let effectiveDate = entry["effectiveDate"]?.stringValue.flatMap(AppleDate.parse)
        else { return nil }
        return LibraryChainCase(
            id: id, x5c: strings(entry["x5c"]), trustedRoots: strings(entry["trustedRoots"]),
            effectiveDate: effectiveDate, valid: expect["valid"] == .bool(true),
            leafPublicKeySPKIBase64: expect["leafPublicKeySpkiBase64"]?.stringValue)
    }

    /// Cases Apple's libraries accept and tipledger rejects on purpose, with its code. None: the
    /// bare `transactionInfo` mock (no `transactionId`) verifies, and only the ledger refuses to
    /// record it.
    static let deviations: [String: VerificationError.Code] = [:]

    /// tipledger's code for each rejecting case. Apple's status names differ per language (the
    /// Swift library reports a missing x5c as INVALID_JWT_FORMAT, Python as VERIFICATION_FAILURE,
    /// Node as INVALID_CERTIFICATE), so the mapping is written out here, from docs/verification.md.
    static let rejections: [String: VerificationError.Code] = [
        "notif-test-production-wrong-env": .wrongEnvironment,
        // Identity is checked before the environment, as in Apple's library.
        "notif-test-production-wrong-appappleid": .wrongAppAppleId,
        // A notification decoded as a transaction has no bundleId.
        "notif-test-decoded-as-transaction": .wrongBundleId,
        // The chain is under "x5cwrong": there is no x5c.
        "notif-missing-x5c": .invalidChainLength,
        "notif-wrong-bundleid": .wrongBundleId,
        "txn-wrong-bundleid": .wrongBundleId,
        "jws-too-many-parts": .malformedJWS,
        // "a" is not base64url (a one-character group cannot encode a byte).
        "jws-malformed-segments": .malformedJWS,
        // One certificate without the Xcode environment accepted.
        "xcode-app-transaction-under-production": .invalidChainLength,
        "chain-intermediate-wrong-oid": .missingAppleOID,
        "chain-leaf-wrong-oid": .missingAppleOID,
        "chain-a-expired": .certificateNotValidAtSignedDate,
        "chain-a-untrusted-root": .untrustedChain,
        // Two certificates.
        "chain-too-short": .invalidChainLength,
        "chain-leaf-not-base64": .invalidCertificate,
    ]
}

/// A decoded field's value, for comparison with the JSON in `expectations.json`.
enum DecodedField: Equatable {
    case text(String?)
    case number(Double?)
    case flag(Bool?)

    static func date(_ date: AppleDate?) -> DecodedField { .number(date?.milliseconds) }
    static func integer(_ value: (some BinaryInteger)?) -> DecodedField { .number(value.map { Double($0) }) }

    /// Whether this is what `expected` says; numbers compare exactly, fractions included.
    func matches(_ expected: JSONValue) -> Bool {
        switch (self, expected) {
        case (.text(nil), .null), (.number(nil), .null), (.flag(nil), .null): true
        case (.text(let text?), .string(let wanted)): text == wanted
        case (.number(let number?), .integer(let wanted)): number == Double(wanted)
        case (.number(let number?), .double(let wanted)): number == wanted
        case (.flag(let flag?), .bool(let wanted)): flag == wanted
        default: false
        }
    }

    /// The fields `expectations.json` lists, by its names, for a verified payload.
    static func fields(of verified: VerifiedPayload) -> [String: DecodedField] {
        switch verified {
        case .notification(let notification):
            let payload = notification.payload
            return [
                "notificationType": .text(payload.rawNotificationType), "subtype": .text(payload.rawSubtype),
                "notificationUUID": .text(payload.notificationUUID), "signedDate": .date(payload.signedDate),
                "data.bundleId": .text(payload.data?.bundleId), "data.appAppleId": .integer(payload.data?.appAppleId),
                "data.environment": .text(payload.data?.rawEnvironment),
            ]
        case .transaction(let transaction):
            let payload = transaction.payload
            return [
                "environment": .text(payload.rawEnvironment), "bundleId": .text(payload.bundleId),
                "signedDate": .date(payload.signedDate), "originalTransactionId": .text(payload.originalTransactionId),
                "transactionId": .text(payload.transactionId), "webOrderLineItemId": .text(payload.webOrderLineItemId),
                "productId": .text(payload.productId),
                "subscriptionGroupIdentifier": .text(payload.subscriptionGroupIdentifier),
                "purchaseDate": .date(payload.purchaseDate),
                "originalPurchaseDate": .date(payload.originalPurchaseDate),
                "expiresDate": .date(payload.expiresDate), "quantity": .integer(payload.quantity),
                "type": .text(payload.rawType), "appAccountToken": .text(payload.appAccountToken),
                "inAppOwnershipType": .text(payload.rawInAppOwnershipType),
                "revocationReason": .integer(payload.rawRevocationReason),
                "revocationDate": .date(payload.revocationDate),
                "isUpgraded": .flag(payload.isUpgraded), "offerType": .integer(payload.rawOfferType),
                "offerIdentifier": .text(payload.offerIdentifier), "storefront": .text(payload.storefront),
                "storefrontId": .text(payload.storefrontId), "transactionReason": .text(payload.rawTransactionReason),
            ]
        case .renewalInfo(let renewal):
            let payload = renewal.payload
            return [
                "expirationIntent": .integer(payload.rawExpirationIntent),
                "originalTransactionId": .text(payload.originalTransactionId),
                "autoRenewProductId": .text(payload.autoRenewProductId), "productId": .text(payload.productId),
                "autoRenewStatus": .integer(payload.rawAutoRenewStatus),
                "isInBillingRetryPeriod": .flag(payload.isInBillingRetryPeriod),
                "priceIncreaseStatus": .integer(payload.rawPriceIncreaseStatus),
                "gracePeriodExpiresDate": .date(payload.gracePeriodExpiresDate),
                "offerType": .integer(payload.rawOfferType), "offerIdentifier": .text(payload.offerIdentifier),
                "signedDate": .date(payload.signedDate), "environment": .text(payload.rawEnvironment),
                "recentSubscriptionStartDate": .date(payload.recentSubscriptionStartDate),
                "renewalDate": .date(payload.renewalDate),
            ]
        case .appTransaction(let app):
            let payload = app.payload
            return [
                "receiptType": .text(payload.rawReceiptType), "appAppleId": .integer(payload.appAppleId),
                "bundleId": .text(payload.bundleId), "applicationVersion": .text(payload.applicationVersion),
                "versionExternalIdentifier": .integer(payload.versionExternalIdentifier),
                "originalPurchaseDate": .date(payload.originalPurchaseDate),
                "originalApplicationVersion": .text(payload.originalApplicationVersion),
                "deviceVerification": .text(payload.deviceVerification),
                "deviceVerificationNonce": .text(payload.deviceVerificationNonce),
                "preorderDate": .date(payload.preorderDate), "receiptCreationDate": .date(payload.receiptCreationDate),
            ]
        }
    }
}

@Suite struct AppleLibraryVectorTests {
    @Test func expectationsAreReadAndOnlyReceiptsAreSkipped() {
        #expect(LibraryExpectations.allJWSCases.count == 18)
        #expect(LibraryExpectations.chainCases.count == 8)
        let skipped = LibraryExpectations.allJWSCases.filter {
            LibraryExpectations.outOfScopeKinds.contains($0.decodeAs)
        }
        #expect(
            Set(skipped.map(\.id)) == [
                "receipt-legacy-transaction", "receipt-xcode-app-empty", "receipt-xcode-app-with-transaction",
            ])
        for jwsCase in LibraryExpectations.jwsCases {
            #expect(PayloadKind(rawValue: jwsCase.decodeAs) != nil, "\(jwsCase.id): unknown kind \(jwsCase.decodeAs)")
            #expect(jwsCase.settings != nil, "\(jwsCase.id): unreadable verifier settings")
            #expect(
                jwsCase.valid != (LibraryExpectations.rejections[jwsCase.id] != nil),
                "\(jwsCase.id): a rejecting case needs a code, an accepted one none")
        }
        for chainCase in LibraryExpectations.chainCases {
            #expect(
                chainCase.valid != (LibraryExpectations.rejections[chainCase.id] != nil),
                "\(chainCase.id): a rejecting case needs a code, an accepted one none")
        }
    }

    // MARK: jwsCases

    private func checkFields(_ jwsCase: LibraryJWSCase, of verified: VerifiedPayload) {
        let decoded = DecodedField.fields(of: verified)
        #expect(!jwsCase.fields.isEmpty, "\(jwsCase.id): a valid case lists the fields to check")
        for (name, expected) in jwsCase.fields {
            guard let field = decoded[name] else {
                Issue.record("\(jwsCase.id): field \(name) is not mapped to the model")
                continue
            }
            #expect(field.matches(expected), "\(jwsCase.id): \(name) is \(field), expected \(expected)")
        }
    }

    @Test(arguments: LibraryExpectations.jwsCases)
    func libraryJWSCaseHasItsVerdict(_ jwsCase: LibraryJWSCase) throws {
        let settings = try #require(jwsCase.settings)
        let kind = try #require(PayloadKind(rawValue: jwsCase.decodeAs))
        let token = try jwsCase.token()
        if !jwsCase.valid {
            let code = try #require(LibraryExpectations.rejections[jwsCase.id])
            #expect(try settings.verifier().rejection(of: token, as: kind) == code)
            // Where every language agrees on Apple's status, tipledger reports the same one.
            let names = Set(jwsCase.errorNames.values)
            if names.count == 1, let name = names.first, !name.contains(" ") {
                #expect(code.appleStatus == name, "\(jwsCase.id)")
            }
            return
        }
        var verifier = try settings.verifier()
        if let code = LibraryExpectations.deviations[jwsCase.id] {
            #expect(verifier.rejection(of: token, as: kind) == code)
            // The listed fields still decode as Apple's library reads them.
            let payload = try JWSTransactionDecodedPayload(PayloadReader(try UnverifiedJWS.parse(token).payload))
            for (name, expected) in jwsCase.fields {
                let field: DecodedField? =
                    switch name {
                    case "environment": .text(payload.rawEnvironment)
                    case "bundleId": .text(payload.bundleId)
                    case "signedDate": .date(payload.signedDate)
                    default: nil
                    }
                #expect(field?.matches(expected) == true, "\(jwsCase.id): \(name)")
            }
            return
        }
        if settings.environment.isLocalTesting {
            // Apple's libraries skip all crypto for Xcode; tipledger trusts the Xcode certificate
            // only when it is in the trust store. Without it: untrusted.
            #expect(verifier.rejection(of: token, as: kind) == .untrustedChain)
            verifier = try settings.verifier(extraRoots: [try TestJWS.xcodeCertificate(of: token)])
        }
        let verified = try verifier.verifyPayload(token, as: kind)
        #expect(verified.kind == kind)
        #expect(verified.environment == settings.environment)
        checkFields(jwsCase, of: verified)
    }

    @Test func testNotificationIsCheckedAtItsSignedDateNotTheClock() throws {
        let jwsCase = try #require(LibraryExpectations.jwsCases.first { $0.id == "notif-test-sandbox-valid" })
        let notification = try #require(jwsCase.settings).verifier().verifyNotification(try jwsCase.token())
        #expect(notification.effectiveDate == AppleDate(wholeMilliseconds: 1_681_314_324_000))
        // x5c[2] is the older version-1 root, not the trusted testCA.der: it is not the anchor.
        let x5c = try UnverifiedJWS.parse(try jwsCase.token()).header["x5c"]
        guard case .array(let entries)? = x5c, let third = entries.last?.stringValue else {
            Issue.record("no x5c")
            return
        }
        let trusted = try Fixtures.appleLibraryCertificate("certs/test-chain-a/testCA.der")
        #expect(Base64.decode(third, alphabet: .standard) != trusted.derEncoded)
    }

    @Test func libraryMockTransactionVerifiesOnceItHasATransactionId() throws {
        // Same payload plus a transactionId, signed by the same key (testLeaf.key is chain B's
        // leaf key) under the same x5c: everything else about the mock passes.
        let jwsCase = try #require(LibraryExpectations.jwsCases.first { $0.id == "txn-sandbox-valid" })
        let original = try UnverifiedJWS.parse(try jwsCase.token())
        guard case .array(let entries)? = original.header["x5c"] else {
            Issue.record("no x5c")
            return
        }
        let key = try PrivateKey(pemEncoded: try Fixtures.text("apple-library/keys/testLeaf.key"))
        let token = try TestJWS.sign(
            header: TestJWS.header(x5c: entries.compactMap(\.stringValue)),
            payload:
                #"{"environment":"Sandbox","bundleId":"com.example","signedDate":1672956154000,"transactionId":"1"}"#,
            key: key)
        let verified = try #require(jwsCase.settings).verifier().verifyTransaction(token)
        #expect(verified.transactionId == "1")
        #expect(verified.environment == .sandbox)
        #expect(verified.effectiveDate == AppleDate(wholeMilliseconds: 1_672_956_154_000))
    }

    // MARK: chainCases

    /// A transaction for `com.example` in Sandbox, signed at `date` with the library's test leaf
    /// key under `x5c`.
    private func token(x5c: [String], signedAt date: AppleDate) throws -> String {
        let key = try PrivateKey(pemEncoded: try Fixtures.text("apple-library/keys/testLeaf.key"))
        let payload = TestPayloads.transaction([
            "bundleId": "\"com.example\"", "signedDate": String(date.wholeMilliseconds),
        ])
        return try TestJWS.sign(header: TestJWS.header(x5c: x5c), payload: payload, key: key)
    }

    private func x5c(_ chainCase: LibraryChainCase) throws -> [String] {
        try chainCase.x5c.map { entry in
            if entry.hasPrefix("<literal: "), entry.hasSuffix(">") {
                return String(entry.dropFirst("<literal: ".count).dropLast())
            }
            return TestJWS.x5c([try Fixtures.appleLibraryCertificate(entry)])[0]
        }
    }

    private func verifier(_ chainCase: LibraryChainCase) throws -> Verifier {
        Verifier(
            trustStore: try TrustStore(
                roots: try chainCase.trustedRoots.map { try Fixtures.appleLibraryCertificate($0) }),
            policy: VerificationPolicy(bundleIds: ["com.example"], environments: [.sandbox], appAppleId: 1234),
            clock: .fixed(chainCase.effectiveDate))
    }

    @Test(arguments: LibraryExpectations.chainCases.filter { !$0.x5c.contains { $0.hasPrefix("certs/apple-real/") } })
    func libraryChainCaseHasItsVerdict(_ chainCase: LibraryChainCase) throws {
        let token = try token(x5c: try x5c(chainCase), signedAt: chainCase.effectiveDate)
        let code = try verifier(chainCase).rejection(of: token)
        if chainCase.valid {
            #expect(code == nil, "\(chainCase.id): \(code?.rawValue ?? "")")
        } else {
            #expect(code == LibraryExpectations.rejections[chainCase.id], "\(chainCase.id)")
        }
        if let spki = chainCase.leafPublicKeySPKIBase64 {
            let leaf = try Fixtures.appleLibraryCertificate(chainCase.x5c[0])
            #expect(Base64.encode(try leaf.publicKey().subjectPublicKeyInfo, alphabet: .standard) == spki)
        }
    }

    @Test func realAppleChainPassesEveryChainRuleOffline() throws {
        // Apple's leaf key is not available, so the chain is checked directly, then through the
        // verifier with a payload the leaf did not sign: a bad signature means every chain check
        // before it passed.
        let chainCase = try #require(LibraryExpectations.chainCases.first { $0.id == "chain-apple-real-offline" })
        #expect(chainCase.valid)
        let certificates = try chainCase.x5c.map { try Fixtures.appleLibraryCertificate($0) }
        let store = try TrustStore(roots: try chainCase.trustedRoots.map { try Fixtures.appleLibraryCertificate($0) })
        let chain = try store.validate(
            leaf: certificates[0], intermediate: certificates[1], atSeconds: chainCase.effectiveDate.wholeSeconds
        ).get()
        #expect(chain.root.isByteEqual(to: TrustAnchors.appleRootCAG3))
        #expect(chain.intermediate.hasCABasicConstraint)
        #expect(!chain.leaf.mayActAsCA)
        #expect(chain.leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(chain.intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(try chain.leaf.publicKey().isP256)

        let token = try token(x5c: try x5c(chainCase), signedAt: chainCase.effectiveDate)
        #expect(try verifier(chainCase).rejection(of: token) == .badSignature)
        // After the leaf expired, the time check comes first.
        let late = try self.token(x5c: try x5c(chainCase), signedAt: AppleDate(wholeMilliseconds: 1_823_449_643_000))
        #expect(try verifier(chainCase).rejection(of: late) == .certificateNotValidAtSignedDate)
    }

    @Test func libraryChainBIsAcceptedWithItsOlderThirdCertificate() throws {
        // Chain B's leaf and intermediate chain to testCA.der by name and key; its x5c[2] is a
        // different (version 1) root that is ignored.
        let x5c = TestJWS.x5c(
            try [
                "certs/test-chain-b/chainB-leaf.der", "certs/test-chain-b/chainB-intermediate.der",
                "certs/test-chain-b/chainB-root.der",
            ]
            .map { try Fixtures.appleLibraryCertificate($0) })
        let date = try #require(AppleDate.parse("2025-11-01T02:09:35Z"))
        let chainCase = LibraryChainCase(
            id: "chain-b", x5c: [], trustedRoots: ["certs/test-chain-a/testCA.der"], effectiveDate: date, valid: true,
            leafPublicKeySPKIBase64: nil)
        #expect(try verifier(chainCase).rejection(of: try token(x5c: x5c, signedAt: date)) == nil)
        // The version-1 root cannot be a trust anchor's stand-in for the intermediate.
        let rootAsIntermediate = [x5c[0], x5c[2], x5c[2]]
        #expect(
            try verifier(chainCase).rejection(of: try token(x5c: rootAsIntermediate, signedAt: date)) == .untrustedChain
        )
    }
}
