// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerHTTP
import TipLedgerTestSupport

@testable import TipLedgerStore

/// `POST /v1/transactions` through the router: 200 with the ledger record, 422 with the error
/// code when the transaction is rejected.
@Suite struct TransactionRouteTests {
    /// The two body shapes the app may send.
    enum Shape: String, CaseIterable, Sendable {
        case raw, rawWithNewline, wrapped

        func body(_ jws: String) -> String {
            switch self {
            case .raw: jws
            case .rawWithNewline: jws + "\n"
            case .wrapped: #"{"signedTransaction":"\#(jws)"}"#
            }
        }
    }

    @Test(arguments: Shape.allCases)
    func submittedTransactionIsRecordedAsFinished(_ shape: Shape) throws {
        let harness = try ServiceHarness()
        let jws = try TestChains.transaction(id: "2000000000000201", price: 4990)

        let response = harness.post("/v1/transactions", shape.body(jws))

        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let body = try jsonObject(response)
        #expect(body["outcome"] as? String == "recorded")
        #expect(body["environment"] as? String == "Sandbox")
        #expect(body["transactionId"] as? String == "2000000000000201")
        #expect(body["productId"] as? String == "com.example.tips.small")
        #expect(body["appAccountToken"] as? String == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(body["state"] as? String == "finished")
        #expect(body["finished"] as? Bool == true)
        #expect(try harness.state(of: "2000000000000201") == "finished")
    }

    /// A wrapped body the strict JSON parser refuses says why, rather than that it holds no
    /// signedTransaction string.
    @Test(arguments: [
        (
            #"{"signedTransaction":"a.b.c","extra":"# + String(repeating: "[", count: 40)
                + String(repeating: "]", count: 40) + "}",
            "nesting deeper than 32 at byte 68"
        ),
        (
            #"{"signedTransaction":"a.b.c","signedTransaction":"d.e.f"}"#,
            #"duplicate member "signedTransaction" at byte 29"#
        ),
    ])
    func aWrappedBodyThatIsNotJSONSaysWhy(_ body: String, _ reason: String) throws {
        let harness = try ServiceHarness()

        let response = harness.post("/v1/transactions", body)

        let answer = try jsonObject(response)
        let message = answer["message"] as? String
        #expect(response.status == 422)
        #expect(answer["error"] as? String == "malformed_jws")
        #expect(
            message
                == #"the body is not JSON: \#(reason); a transaction is posted as its JWS, or as {"signedTransaction":"<JWS>"}"#
        )
    }

    @Test func sameTransactionAgainIsADuplicateWhateverItsShape() throws {
        let harness = try ServiceHarness()
        let jws = try TestChains.transaction(id: "2000000000000202")

        let first = harness.post("/v1/transactions", Shape.raw.body(jws))
        let second = harness.post("/v1/transactions", Shape.wrapped.body(jws))
        let third = harness.post("/v1/transactions", Shape.raw.body(jws))

        #expect([first.status, second.status, third.status] == [200, 200, 200])
        #expect(try jsonObject(first)["outcome"] as? String == "recorded")
        #expect(try jsonObject(second)["outcome"] as? String == "duplicate")
        #expect(try jsonObject(third)["outcome"] as? String == "duplicate")
        #expect(try jsonObject(third)["state"] as? String == "finished")
        #expect(try harness.count("transactions") == 1)
        #expect(try harness.count("evidence") == 1)
        #expect(try harness.integer("SELECT count(*) FROM events WHERE kind = 'recorded'") == 1)
    }

    /// A validly signed version of a recorded transaction with another purchase in it is
    /// rejected (422; 400 inside a notification), and the ledger keeps what it had.
    @Test func aVersionContradictingTheRecordedPurchaseIsRejected() throws {
        let harness = try ServiceHarness()
        let id = "2000000000000205"
        #expect(harness.postTransaction(try TestChains.transaction(id: id, price: 990)).status == 200)
        let other = try TestChains.transaction(id: id, price: 99_000) {
            $0.signedDate = TestChains.referenceMilliseconds + 3_600_000
        }
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(205), signedDate: TestChains.referenceMilliseconds + 7_200_000,
            around: other)

        let direct = harness.postTransaction(other)
        let notified = harness.postNotification(refund)

        #expect(direct.status == 422)
        #expect(try jsonObject(direct)["error"] as? String == "invalid_payload")
        #expect(notified.status == 400)
        #expect(try jsonObject(notified)["error"] as? String == "invalid_payload")
        #expect(try harness.count("evidence") == 1)
        #expect(try harness.count("notifications") == 0)
        // Each request counted once, by its outcome: the first recorded, the other two refused.
        let metrics = try PrometheusText(harness.request("GET", "/metrics"))
        #expect(metrics["tipledger_verifications_total", ["outcome": "ok"]] == 1)
        #expect(metrics["tipledger_verifications_total", ["outcome": "invalid_payload"]] == 2)
        #expect(metrics["tipledger_notifications_total", ["type": "REFUND"]] == nil)
    }

    @Test func serviceThatDoesNotFinishRecordsPendingTransactions() throws {
        let harness = try ServiceHarness(finishesTransactions: false)

        let response = harness.postTransaction(try TestChains.transaction(id: "2000000000000203"))

        #expect(response.status == 200)
        let body = try jsonObject(response)
        #expect(body["outcome"] as? String == "recorded")
        #expect(body["state"] as? String == "pending")
        #expect(body["finished"] as? Bool == false)
    }

    /// Submissions the verifier rejects, each with its code and Apple's status name.
    enum Rejected: String, CaseIterable, Sendable {
        case badSignature, untrustedChain, wrongBundle, wrongEnvironment, garbage, emptyBody, notUTF8,
            wrappedWithoutSignedTransaction, wrappedNotJSON, notificationInsteadOfTransaction,
            withoutTransactionId, negativePrice, priceBeyondTheLedgersLimit, zeroQuantity

        var expected: (code: String, appleStatus: String) {
            switch self {
            case .badSignature: ("bad_signature", "VERIFICATION_FAILURE")
            case .untrustedChain: ("untrusted_chain", "VERIFICATION_FAILURE")
            case .wrongBundle: ("wrong_bundle_id", "INVALID_APP_IDENTIFIER")
            case .wrongEnvironment: ("wrong_environment", "INVALID_ENVIRONMENT")
            case .garbage, .emptyBody, .notUTF8, .wrappedWithoutSignedTransaction, .wrappedNotJSON:
                ("malformed_jws", "INVALID_JWT_FORMAT")
            // A notification's payload has no top-level bundleId for the transaction model.
            case .notificationInsteadOfTransaction: ("wrong_bundle_id", "INVALID_APP_IDENTIFIER")
            case .withoutTransactionId, .negativePrice, .priceBeyondTheLedgersLimit, .zeroQuantity:
                ("invalid_payload", "INVALID_JWT_FORMAT")
            }
        }

        func body() throws -> [UInt8] {
            let id = "2000000000000204"
            switch self {
            case .badSignature:
                let valid = try TestChains.transaction(id: id)
                var signature = TestJWS.signature(of: valid)
                signature[63] ^= 0x80
                return Array(TestJWS.replacingSignature(of: valid, with: signature).utf8)
            case .untrustedChain:
                return Array(try TestChains.transaction(id: id, pki: TestChains.other).utf8)
            case .wrongBundle:
                return Array(try TestChains.transaction(id: id, bundleId: "com.example.other").utf8)
            case .wrongEnvironment:
                return Array(try TestChains.transaction(id: id, environment: "Xcode").utf8)
            case .garbage:
                return Array("not a token".utf8)
            case .emptyBody:
                return []
            case .notUTF8:
                return [0x65, 0x79, 0x4A, 0xFF, 0xFE, 0x2E, 0x2E]
            case .wrappedWithoutSignedTransaction:
                return Array(#"{"signedPayload":"a.b.c"}"#.utf8)
            case .wrappedNotJSON:
                return Array(#"{"signedTransaction":"#.utf8)
            case .notificationInsteadOfTransaction:
                return Array(try TestChains.notification(type: "TEST", uuid: TestChains.uuid(204)).utf8)
            case .withoutTransactionId:
                // Apple's model allows it, but the ledger keys transactions on it.
                return Array(try TestJWS.sign(TestPayloads.transaction(["transactionId": nil])).utf8)
            // Validly signed amounts the ledger cannot add up.
            case .negativePrice:
                return Array(try TestChains.transaction(id: id, price: -1).utf8)
            case .priceBeyondTheLedgersLimit:
                return Array(try TestChains.transaction(id: id, price: Ledger.maximumPriceMilli + 1).utf8)
            case .zeroQuantity:
                return Array(try TestJWS.sign(TestPayloads.transaction(["quantity": "0"])).utf8)
            }
        }
    }

    @Test(arguments: Rejected.allCases)
    func rejectedTransactionIsAnswered422WithItsCode(_ rejected: Rejected) throws {
        let harness = try ServiceHarness()

        let response = harness.request("POST", "/v1/transactions", body: try rejected.body())

        #expect(response.status == 422, "\(rejected)")
        let body = try jsonObject(response)
        #expect(body["error"] as? String == rejected.expected.code, "\(rejected)")
        #expect(body["appleStatus"] as? String == rejected.expected.appleStatus, "\(rejected)")
        #expect((body["message"] as? String)?.isEmpty == false)
        #expect(!response.bodyText.contains("eyJ"), "the body repeats the token")
        #expect(internalText(in: response.body) == [])
        #expect(try harness.count("transactions") == 0)
        #expect(try harness.count("evidence") == 0)
    }
}
