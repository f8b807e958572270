// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `POST /v1/notifications` through the router: 200 for what was applied, a duplicate or an
/// ignored type, 400 for what is permanently bad, 503 when the ledger cannot take it.
@Suite struct NotificationRouteTests {
    @Test func refundOfARecordedTransactionIsApplied() throws {
        let harness = try ServiceHarness()
        let transaction = try TestChains.transaction(id: "2000000000000101")
        #expect(harness.postTransaction(transaction).status == 200)

        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(101), signedDate: TestChains.referenceMilliseconds + 3_600_000,
            around: transaction)
        let response = harness.postNotification(refund)

        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let body = try jsonObject(response)
        #expect(body["outcome"] as? String == "applied")
        #expect(body["notificationType"] as? String == "REFUND")
        #expect(body["notificationUUID"] as? String == TestChains.uuid(101))
        #expect(body["environment"] as? String == "Sandbox")
        #expect(body["transactionId"] as? String == "2000000000000101")
        #expect(body["state"] as? String == "refunded")
        #expect(body["finished"] as? Bool == true)
        #expect(try harness.state(of: "2000000000000101") == "refunded")
    }

    /// A payload posted to the other route is said to be of the other kind, and a bare token
    /// posted for a webhook body is told the shape the route takes.
    @Test func aPayloadPostedToTheWrongRouteIsToldWhatItIs() throws {
        let harness = try ServiceHarness()
        let transaction = try TestChains.transaction(id: "2000000000000104")
        let notification = try TestChains.notification(type: "TEST", uuid: TestChains.uuid(104))

        let asTransaction = harness.post("/v1/transactions", notification)
        let asNotification = harness.post("/v1/notifications", WebhookBody.wrapping(transaction))
        let bare = harness.post("/v1/notifications", notification + "\n")
        let shapeless = harness.post("/v1/notifications", #"{"signedTransaction":"x"}"#)

        #expect(asTransaction.status == 422)
        #expect(try jsonObject(asTransaction)["error"] as? String == "wrong_bundle_id")
        #expect(
            try jsonObject(asTransaction)["message"] as? String
                == "the payload is a notification, not a signed transaction, so it has no bundleId for one")
        #expect(asNotification.status == 400)
        #expect(
            try jsonObject(asNotification)["message"] as? String
                == "the payload is a signed transaction, not a notification, so it has no bundleId for one")
        #expect(bare.status == 400)
        #expect(try jsonObject(bare)["error"] as? String == "malformed_jws")
        #expect(
            try jsonObject(bare)["message"] as? String
                == #"the body is a bare JWS; a notification is posted as {"signedPayload":"<JWS>"}"#)
        #expect(
            try jsonObject(shapeless)["message"] as? String
                == #"the body has no signedPayload string; a notification is posted as {"signedPayload":"<JWS>"}"#)
        let webhookAsTransaction = harness.post("/v1/transactions", WebhookBody.wrapping(notification))
        #expect(webhookAsTransaction.status == 422)
        #expect(
            try jsonObject(webhookAsTransaction)["message"] as? String
                == "the body is a notification's webhook body; post it to /v1/notifications")
        #expect(try harness.count("evidence") == 0)
    }

    /// An empty body is said to be empty, with the shape each route takes.
    @Test(arguments: [
        ("/v1/transactions", #"a transaction is posted as its JWS, or as {"signedTransaction":"<JWS>"}"#),
        ("/v1/notifications", #"a notification is posted as {"signedPayload":"<JWS>"}"#),
    ])
    func anEmptyBodyIsSaidToBeEmpty(_ path: String, _ shape: String) throws {
        let harness = try ServiceHarness()
        for body in ["", " \r\n"] {
            let response = harness.post(path, body)
            #expect(response.status == (path == "/v1/transactions" ? 422 : 400))
            #expect(try jsonObject(response)["error"] as? String == "malformed_jws")
            #expect(try jsonObject(response)["message"] as? String == "the body is empty; \(shape)")
        }
    }

    @Test func sameNotificationTwiceIsADuplicateAndAppliesOnce() throws {
        let harness = try ServiceHarness()
        let transaction = try TestChains.transaction(id: "2000000000000102")
        #expect(harness.postTransaction(transaction).status == 200)
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(102), signedDate: TestChains.referenceMilliseconds + 60_000,
            around: transaction)

        let first = harness.postNotification(refund)
        let second = harness.postNotification(refund)

        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(try jsonObject(first)["outcome"] as? String == "applied")
        #expect(try jsonObject(second)["outcome"] as? String == "duplicate")
        #expect(try jsonObject(second)["notificationUUID"] as? String == TestChains.uuid(102))
        #expect(try harness.count("notifications") == 1)
        #expect(try harness.integer("SELECT count(*) FROM events WHERE kind = 'refunded'") == 1)
    }

    @Test(arguments: ["TEST", "REFUND_DECLINED", "SOMETHING_APPLE_ADDS_IN_2030"])
    func notificationThatChangesNothingIsAcknowledged(type: String) throws {
        let harness = try ServiceHarness()

        let response = harness.postNotification(try TestChains.notification(type: type, uuid: TestChains.uuid(103)))

        #expect(response.status == 200)
        let body = try jsonObject(response)
        #expect(body["outcome"] as? String == "recorded")
        #expect(body["notificationType"] as? String == type)
        // No transaction, so no state, as `verify --format json` says it.
        #expect(body["state"] == nil && body["finished"] == nil)
        #expect(try harness.count("notifications") == 1)
        #expect(try harness.count("transactions") == 0)
    }

    /// Bodies the App Store must not retry: each is answered 400 with its error code, and nothing
    /// of it reaches the ledger.
    enum PermanentlyBad: String, CaseIterable, Sendable {
        case badSignature, untrustedChain, wrongBundle, wrongEnvironment, notJSON, noSignedPayload,
            signedPayloadNotAString, emptyBody, notUTF8, rawJWSWithoutWebhookBody, forgedNestedTransaction,
            nestedTransactionFromAnotherPKI, nestedTransactionOfAnotherApp, nestedTransactionWithANegativePrice

        var expectedCode: String {
            switch self {
            case .badSignature, .forgedNestedTransaction: "bad_signature"
            case .untrustedChain, .nestedTransactionFromAnotherPKI: "untrusted_chain"
            case .wrongBundle, .nestedTransactionOfAnotherApp: "wrong_bundle_id"
            case .wrongEnvironment: "wrong_environment"
            case .nestedTransactionWithANegativePrice: "invalid_payload"
            case .notJSON, .noSignedPayload, .signedPayloadNotAString, .emptyBody, .notUTF8,
                .rawJWSWithoutWebhookBody:
                "malformed_jws"
            }
        }

        func body() throws -> [UInt8] {
            let uuid = TestChains.uuid(104)
            let transaction = try TestChains.transaction(id: "2000000000000104")
            func webhook(_ jws: String) -> [UInt8] { Array(WebhookBody.wrapping(jws).utf8) }
            /// A notification signed by the trusted PKI around `nested`, as given.
            func around(_ nested: String) throws -> [UInt8] {
                let notification = TestNotification(
                    notificationType: "REFUND", notificationUUID: uuid, signedDate: TestChains.referenceMilliseconds,
                    environment: "Sandbox", bundleId: "com.example.tips", appAppleId: TestChains.appAppleId,
                    signedTransactionInfo: nested)
                return webhook(try JWSSigner(pki: TestChains.standard).sign(payload: notification.payloadJSON))
            }
            switch self {
            case .badSignature:
                let valid = try TestChains.notification(type: "TEST", uuid: uuid)
                var signature = TestJWS.signature(of: valid)
                signature[10] ^= 0x01
                return webhook(TestJWS.replacingSignature(of: valid, with: signature))
            case .untrustedChain:
                return webhook(try TestChains.notification(type: "TEST", uuid: uuid, pki: TestChains.other))
            case .wrongBundle:
                return webhook(try TestChains.notification(type: "TEST", uuid: uuid, bundleId: "com.example.other"))
            case .wrongEnvironment:
                return webhook(try TestChains.notification(type: "TEST", uuid: uuid, environment: "Xcode"))
            case .notJSON:
                return Array("signedPayload=eyJhbGciOiJFUzI1NiJ9".utf8)
            case .noSignedPayload:
                return Array(#"{"signedTransaction":"a.b.c"}"#.utf8)
            case .signedPayloadNotAString:
                return Array(#"{"signedPayload":42}"#.utf8)
            case .emptyBody:
                return []
            case .notUTF8:
                return Array(#"{"signedPayload":""#.utf8) + [0xC3, 0x28, 0xFF] + Array(#""}"#.utf8)
            case .rawJWSWithoutWebhookBody:
                return Array(try TestChains.notification(type: "TEST", uuid: uuid).utf8)
            case .forgedNestedTransaction:
                // The trusted notification carries a transaction whose payload was changed after
                // signing (a tenfold price): its own signature no longer covers it.
                let forged = TestJWS.replacingPayload(
                    of: transaction,
                    with: TestPayloads.transaction(["transactionId": "\"2000000000000104\"", "price": "9900"]))
                return try around(forged)
            case .nestedTransactionFromAnotherPKI:
                return try around(try TestChains.transaction(id: "2000000000000104", pki: TestChains.other))
            case .nestedTransactionOfAnotherApp:
                return try around(try TestChains.transaction(id: "2000000000000104", bundleId: "com.example.other"))
            case .nestedTransactionWithANegativePrice:
                // Validly signed, but the ledger adds prices up: a refund of it could not be recorded.
                return try around(try TestChains.transaction(id: "2000000000000104", price: -990))
            }
        }
    }

    @Test(arguments: PermanentlyBad.allCases)
    func permanentlyBadNotificationIsAnswered400AndWritesNothing(_ bad: PermanentlyBad) throws {
        let harness = try ServiceHarness()

        let response = harness.request("POST", "/v1/notifications", body: try bad.body())

        #expect(response.status == 400, "\(bad)")
        #expect(response.headers["Content-Type"] == "application/json")
        let body = try jsonObject(response)
        #expect(body["error"] as? String == bad.expectedCode, "\(bad)")
        #expect(body["appleStatus"] as? String == VerificationError.Code(rawValue: bad.expectedCode)?.appleStatus)
        #expect((body["message"] as? String)?.isEmpty == false)
        #expect(!response.bodyText.contains("eyJ"), "the body repeats the token")
        #expect(internalText(in: response.body) == [])
        #expect(try harness.count("notifications") == 0)
        #expect(try harness.count("evidence") == 0)
        #expect(try harness.count("transactions") == 0)
    }

    @Test func bodyOverTheTokenLimitIsTooLarge() throws {
        let harness = try ServiceHarness()
        let padding = String(repeating: "A", count: VerificationPolicy.maximumTokenBytes + 2048)

        let response = harness.post("/v1/notifications", #"{"signedPayload":"\#(padding)"}"#)

        #expect(response.status == 400)
        #expect(try jsonObject(response)["error"] as? String == "too_large")
    }
}
