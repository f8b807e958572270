// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

/// Notifications and the signed payloads nested in them (docs/verification.md, step 9), webhook bodies,
/// and kind detection.
@Suite struct NotificationVerificationTests {
    private let standard = TestChains.standard

    private func signed(_ payload: String, pki: TestPKI = TestChains.standard) throws -> String {
        try TestJWS.sign(payload, pki: pki)
    }

    /// A notification whose `data` carries `members` (JSON text values) besides the defaults.
    private func notification(type: String = "REFUND", data members: [String: String?]) throws -> String {
        try signed(
            TestPayloads.notification([
                "notificationType": TestPayloads.quoted(type), "data": TestPayloads.notificationData(members),
            ]))
    }

    // MARK: Nested payloads

    @Test func nestedTransactionIsVerifiedAndExposed() throws {
        let transaction = try signed(TestPayloads.transaction(["transactionId": "\"2000000000000777\""]))
        let token = try notification(data: ["signedTransactionInfo": TestPayloads.quoted(transaction)])
        let verified = try TestChains.verifier().verifyNotification(token)
        #expect(verified.rawNotificationType == "REFUND")
        #expect(verified.payload.notificationType == .refund)
        #expect(verified.environment == .sandbox)
        #expect(verified.notificationUUID == "0f8c1a2e-4b5d-4e6f-8a9b-0c1d2e3f4a5b")
        let nested = try #require(verified.transaction)
        #expect(nested.transactionId == "2000000000000777")
        #expect(nested.jws == transaction)
        #expect(nested.environment == .sandbox)
        #expect(verified.renewalInfo == nil && verified.appTransaction == nil)
    }

    @Test func nestedTransactionSignedByAnotherPKIIsRejected() throws {
        let forged = try signed(TestPayloads.transaction(), pki: TestChains.other)
        let token = try notification(data: ["signedTransactionInfo": TestPayloads.quoted(forged)])
        let verifier = try TestChains.verifier()
        #expect(verifier.rejection(of: forged) == .untrustedChain)
        guard case .failure(let error) = verifier.verify(token) else {
            Issue.record("a notification with a forged nested transaction verified")
            return
        }
        #expect(error.code == .untrustedChain)
        #expect(error.message.hasPrefix("data.signedTransactionInfo: "))
    }

    @Test func nestedTransactionTamperedAfterSigningIsRejected() throws {
        let genuine = try signed(TestPayloads.transaction())
        let tampered = TestJWS.replacingPayload(of: genuine, with: TestPayloads.transaction(["price": "99000"]))
        let token = try notification(data: ["signedTransactionInfo": TestPayloads.quoted(tampered)])
        #expect(try TestChains.verifier().rejection(of: token) == .badSignature)
        // The outer signature is good: the same notification around the genuine token verifies.
        let honest = try notification(data: ["signedTransactionInfo": TestPayloads.quoted(genuine)])
        #expect(try TestChains.verifier().rejection(of: honest) == nil)
    }

    @Test func nestedTransactionThatIsNotAJWSIsRejected() throws {
        let token = try notification(data: [
            "signedTransactionInfo": TestPayloads.quoted("signed_transaction_info_value")
        ])
        #expect(try TestChains.verifier().rejection(of: token) == .malformedJWS)
    }

    @Test func nestedTransactionForAnotherEnvironmentIsRejected() throws {
        // Both environments are accepted, but a Sandbox notification cannot carry a Production
        // transaction.
        let production = try signed(TestPayloads.transaction(["environment": "\"Production\""]))
        let token = try notification(data: ["signedTransactionInfo": TestPayloads.quoted(production)])
        let verifier = try TestChains.verifier(environments: [.sandbox, .production])
        #expect(verifier.rejection(of: production) == nil)
        #expect(verifier.rejection(of: token) == .wrongEnvironment)
    }

    @Test func nestedTransactionForAnotherAppIsRejected() throws {
        let other = try signed(TestPayloads.transaction(["bundleId": "\"com.example.other\""]))
        let token = try notification(data: ["signedTransactionInfo": TestPayloads.quoted(other)])
        #expect(try TestChains.verifier().rejection(of: token) == .wrongBundleId)
    }

    @Test func nestedTransactionForAnotherConfiguredAppIsRejected() throws {
        // Both apps are accepted, but a notification for one must not carry the other's purchase.
        let verifier = Verifier(
            trustStore: try TrustStore(roots: [TestChains.standard.root]),
            policy: VerificationPolicy(
                bundleIds: ["com.example.tips", "com.example.other"], environments: [.sandbox],
                appAppleId: 1_234_567_890),
            clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)))
        let other = try signed(TestPayloads.transaction(["bundleId": "\"com.example.other\""]))
        #expect(verifier.rejection(of: other) == nil)
        let token = try notification(data: ["signedTransactionInfo": TestPayloads.quoted(other)])
        #expect(verifier.rejection(of: token) == .wrongBundleId)
    }

    @Test func nestedTransactionIsCheckedAtItsOwnSignedDate() throws {
        let pki = TestChains.shortLivedLeaf
        let day: Int64 = 86_400_000
        let late = try signed(
            TestPayloads.transaction(["signedDate": String(TestChains.referenceMilliseconds + 20 * day)]), pki: pki)
        let token = try signed(
            TestPayloads.notification([
                "data": TestPayloads.notificationData(["signedTransactionInfo": TestPayloads.quoted(late)])
            ]),
            pki: pki)
        #expect(try TestChains.verifier(trusting: pki).rejection(of: token) == .certificateNotValidAtSignedDate)
    }

    @Test func nestedRenewalInfoIsVerified() throws {
        let renewal = try signed(TestPayloads.renewalInfo())
        let token = try notification(type: "DID_RENEW", data: ["signedRenewalInfo": TestPayloads.quoted(renewal)])
        let verified = try TestChains.verifier().verifyNotification(token)
        let nested = try #require(verified.renewalInfo)
        #expect(nested.payload.autoRenewProductId == "com.example.tips.monthly")
        #expect(nested.payload.rawAutoRenewStatus == 1)

        let forged = try signed(TestPayloads.renewalInfo(), pki: TestChains.other)
        let bad = try notification(type: "DID_RENEW", data: ["signedRenewalInfo": TestPayloads.quoted(forged)])
        #expect(try TestChains.verifier().rejection(of: bad) == .untrustedChain)
        let production = try signed(TestPayloads.renewalInfo(["environment": "\"Production\""]))
        let mixed = try notification(type: "DID_RENEW", data: ["signedRenewalInfo": TestPayloads.quoted(production)])
        #expect(try TestChains.verifier().rejection(of: mixed) == .wrongEnvironment)
    }

    @Test func nestedAppTransactionIsVerified() throws {
        let appTransaction = try signed(TestPayloads.appTransaction())
        let appData = TestPayloads.object(
            [
                "appAppleId": "1234567890", "bundleId": "\"com.example.tips\"", "environment": "\"Sandbox\"",
                "signedAppTransactionInfo": TestPayloads.quoted(appTransaction),
            ])
        let token = try signed(
            TestPayloads.notification(["notificationType": "\"RESCIND_CONSENT\"", "data": nil, "appData": appData]))
        let verified = try TestChains.verifier().verifyNotification(token)
        #expect(verified.payload.notificationType == .rescindConsent)
        #expect(verified.appTransaction?.payload.appTransactionId == "704897469903383919")

        let tampered = TestJWS.replacingPayload(
            of: appTransaction, with: TestPayloads.appTransaction(["appAppleId": "7"]))
        let forgedData = TestPayloads.object(
            [
                "appAppleId": "1234567890", "bundleId": "\"com.example.tips\"", "environment": "\"Sandbox\"",
                "signedAppTransactionInfo": TestPayloads.quoted(tampered),
            ])
        let bad = try signed(
            TestPayloads.notification(["notificationType": "\"RESCIND_CONSENT\"", "data": nil, "appData": forgedData]))
        #expect(try TestChains.verifier().rejection(of: bad) == .badSignature)
    }

    @Test func testkitNotificationAroundATestkitTransactionVerifies() throws {
        let transaction = try TestChains.transaction(id: "2000000000000042")
        var fields = TestNotification(
            notificationType: "REFUND", notificationUUID: "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e",
            signedDate: TestChains.referenceMilliseconds, environment: "Sandbox", bundleId: "com.example.tips",
            appAppleId: 1_234_567_890, signedTransactionInfo: transaction)
        fields.consumptionRequestReason = "UNINTENDED_PURCHASE"
        let token = try JWSSigner(pki: TestChains.standard).sign(payload: fields.payloadJSON)
        let verified = try TestChains.verifier().verifyNotification(token)
        #expect(verified.transaction?.transactionId == "2000000000000042")
        #expect(verified.payload.data?.rawConsumptionRequestReason == "UNINTENDED_PURCHASE")
    }

    // MARK: Webhook bodies and kinds

    @Test func webhookBodyVerifiesThroughVerify() throws {
        let token = try notification(
            data: ["signedTransactionInfo": TestPayloads.quoted(try signed(TestPayloads.transaction()))])
        let verifier = try TestChains.verifier()
        for body in [WebhookBody.wrapping(token), " {\"signedPayload\" : \"\(token)\", \"other\": 1}\n"] {
            guard case .success(.notification(let verified)) = verifier.verify(body) else {
                Issue.record("the webhook body did not verify as a notification: \(verifier.verify(body))")
                continue
            }
            #expect(verified.jws == token)
            #expect(verified.transaction?.transactionId == "2000000000000001")
        }
    }

    @Test func webhookBodiesThatAreWrongAreRejected() throws {
        let verifier = try TestChains.verifier()
        #expect(verifier.lineRejection("{\"signedPayload\":42}") == .malformedJWS)
        #expect(verifier.lineRejection("{\"payload\":\"a.b.c\"}") == .malformedJWS)
        #expect(verifier.lineRejection("{\"signedPayload\":") == .malformedJWS)
        #expect(verifier.lineRejection("{\"signedPayload\":\"a.b.c\"}") == .malformedJWS)
        let huge = "{\"signedPayload\":\"" + String(repeating: "a", count: 70_000) + "\"}"
        #expect(verifier.lineRejection(huge) == .tooLarge)
        // A webhook body carries a notification; a transaction inside one is not a notification.
        let transaction = try signed(TestPayloads.transaction())
        #expect(verifier.lineRejection(WebhookBody.wrapping(transaction)) == .wrongBundleId)
        let tampered = TestJWS.replacingPayload(
            of: try signed(TestPayloads.notification()),
            with: TestPayloads.notification(["notificationType": "\"REFUND\""]))
        #expect(verifier.lineRejection(WebhookBody.wrapping(tampered)) == .badSignature)
    }

    @Test func verifyDetectsTheKindOfEachPayload() throws {
        let verifier = try TestChains.verifier()
        let cases: [(String, PayloadKind)] = [
            (TestPayloads.transaction(), .transaction), (TestPayloads.notification(), .notification),
            (TestPayloads.renewalInfo(), .renewalInfo),
            (TestPayloads.renewalInfo(["autoRenewStatus": nil]), .renewalInfo),
            (TestPayloads.appTransaction(), .appTransaction),
        ]
        for (payload, kind) in cases {
            let result = verifier.verify(try signed(payload))
            guard case .success(let verified) = result else {
                Issue.record("\(kind) did not verify: \(result)")
                continue
            }
            #expect(verified.kind == kind)
            #expect(verified.environment == .sandbox)
        }
    }

    @Test func verifiedPayloadsCarryTheirEffectiveDate() throws {
        let verifier = try TestChains.verifier(now: TestChains.referenceMilliseconds + 5_000)
        let transaction = try verifier.verifyTransaction(try signed(TestPayloads.transaction()))
        #expect(transaction.effectiveDate == AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds))
        let undated = try verifier.verifyTransaction(try signed(TestPayloads.transaction(["signedDate": nil])))
        #expect(undated.effectiveDate == AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds + 5_000))
        let created = TestChains.referenceMilliseconds - 1_000
        guard
            case .appTransaction(let app) = try verifier.verifyPayload(
                try signed(TestPayloads.appTransaction(["receiptCreationDate": String(created)])), as: nil)
        else {
            Issue.record("not an app transaction")
            return
        }
        #expect(app.effectiveDate == AppleDate(wholeMilliseconds: created))
    }

    @Test func theClockIsNotUsedWhenThePayloadHasASignedDate() throws {
        // A clock a year after the chain expired does not matter for a dated payload.
        let verifier = try TestChains.verifier(now: TestChains.referenceMilliseconds + 400 * 86_400_000)
        #expect(verifier.rejection(of: try signed(TestPayloads.transaction())) == nil)
        #expect(
            verifier.rejection(of: try signed(TestPayloads.transaction(["signedDate": nil])))
                == .certificateNotValidAtSignedDate)
    }

    // MARK: Model rules through the verifier

    @Test func unknownFieldsAreIgnoredAndUnknownEnumValuesKept() throws {
        let verifier = try TestChains.verifier()
        let token = try signed(
            TestPayloads.transaction([
                "type": "\"Tip Jar Deluxe\"", "inAppOwnershipType": "\"BORROWED\"", "transactionReason": "\"GIFT\"",
                "revocationType": "\"REFUND_PARTIAL_FUTURE\"", "offerType": "9",
                "someNewField": #"{"nested":[1,2.5,null,{"deep":true}]}"#, "advancedCommerceInfo": "{}",
            ]))
        let verified = try verifier.verifyTransaction(token)
        #expect(verified.payload.rawType == "Tip Jar Deluxe" && verified.payload.type == nil)
        #expect(verified.payload.rawInAppOwnershipType == "BORROWED" && verified.payload.inAppOwnershipType == nil)
        #expect(verified.payload.rawTransactionReason == "GIFT")
        #expect(verified.payload.rawRevocationType == "REFUND_PARTIAL_FUTURE" && verified.payload.revocationType == nil)
        #expect(verified.payload.rawOfferType == 9)

        let notification = try verifier.verifyNotification(
            try signed(TestPayloads.notification(["notificationType": "\"TIP_JAR_EMPTIED\"", "subtype": "\"NEW\""])))
        #expect(notification.rawNotificationType == "TIP_JAR_EMPTIED")
        #expect(notification.payload.notificationType == nil)
        #expect(notification.payload.rawSubtype == "NEW")
    }

    @Test func fractionalDatesSurviveVerification() throws {
        let signedDate = 1767225600123.4567
        let token = try signed(
            TestPayloads.transaction([
                "signedDate": "1767225600123.4567", "purchaseDate": "1767225599999.5", "originalPurchaseDate": "1.5",
            ]))
        let verified = try TestChains.verifier().verifyTransaction(token)
        #expect(verified.payload.signedDate?.milliseconds == signedDate)
        #expect(verified.effectiveDate.milliseconds == signedDate)
        #expect(verified.payload.purchaseDate?.milliseconds == 1767225599999.5)
        #expect(verified.payload.purchaseDate?.wholeMilliseconds == 1_767_225_599_999)
        #expect(verified.payload.originalPurchaseDate?.milliseconds == 1.5)
    }

    @Test func proratedRefundFieldsAreDecoded() throws {
        let transaction = try TestChains.transaction(price: 2_970) { fields in
            fields.quantity = 3
            fields.revocationDate = TestChains.referenceMilliseconds
            fields.revocationReason = 1
            fields.revocationType = "REFUND_PRORATED"
            fields.revocationPercentage = 50_000
        }
        let verified = try TestChains.verifier().verifyTransaction(transaction)
        #expect(verified.payload.revocationPercentage == 50_000)
        #expect(verified.payload.revocationType == .refundProrated)
        #expect(verified.payload.rawRevocationReason == 1)
        #expect(verified.payload.revocationDate == AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds))
        #expect(verified.payload.price == 2_970)
        #expect(verified.payload.quantity == 3)
    }

    @Test func bundleIdsAreMatchedExactlyAmongSeveral() throws {
        let verifier = Verifier(
            trustStore: try TrustStore(roots: [TestChains.standard.root]),
            policy: VerificationPolicy(bundleIds: ["com.example.a", "com.example.tips"], environments: [.sandbox]),
            clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)))
        #expect(verifier.rejection(of: try signed(TestPayloads.transaction())) == nil)
        #expect(
            verifier.rejection(of: try signed(TestPayloads.transaction(["bundleId": "\"com.example.tips \""])))
                == .wrongBundleId)
    }

    @Test func theAppAppleIdOfAPayloadOutsideProductionIsNotChecked() throws {
        let verifier = try TestChains.verifier()
        let notification = try signed(
            TestPayloads.notification(["data": TestPayloads.notificationData(["appAppleId": "42"])]))
        let appTransaction = try signed(TestPayloads.appTransaction(["appAppleId": "42"]))

        #expect(verifier.rejection(of: notification) == nil)
        #expect(verifier.rejection(of: appTransaction) == nil)
    }

    /// Apple's libraries take an external purchase token's environment from its id: Sandbox
    /// when it starts with `SANDBOX`, Production otherwise, an absent id included.
    @Test(
        arguments: [
            (nil, AppStoreEnvironment.production), ("b2158121-7af9-49d4-9561-1f588205523e", .production),
            ("SANDBOX_b2158121-7af9-49d4-9561-1f588205523e", .sandbox),
        ] as [(String?, AppStoreEnvironment)])
    func anExternalPurchaseTokenIsForTheEnvironmentItsIdNames(
        _ externalPurchaseId: String?, _ environment: AppStoreEnvironment
    ) throws {
        let token = try signed(
            TestPayloads.notification([
                "notificationType": TestPayloads.quoted("EXTERNAL_PURCHASE_TOKEN"),
                "subtype": TestPayloads.quoted("UNREPORTED"), "data": nil,
                "externalPurchaseToken": TestPayloads.object(
                    [
                        "tokenCreationDate": TestPayloads.referenceDate, "appAppleId": "1234567890",
                        "bundleId": TestPayloads.quoted("com.example.tips"),
                    ], ["externalPurchaseId": externalPurchaseId.map(TestPayloads.quoted)]),
            ]))
        let verified = try TestChains.verifier().verifyNotification(token)
        #expect(verified.environment == environment)
    }

    @Test func aVerifierWithoutAppAppleIdDoesNotCheckIt() throws {
        let verifier = try TestChains.verifier(appAppleId: nil)
        let token = try signed(
            TestPayloads.notification([
                "data": TestPayloads.notificationData(["appAppleId": "42", "environment": "\"Production\""])
            ]))
        #expect(verifier.rejection(of: token) == nil)
    }
}
