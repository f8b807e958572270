// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerStore

/// Verified payloads the ledger refuses to record, as rejections of the input: what it keys on
/// is missing, amounts it adds up are out of range, or a text it keeps is too long.
@Suite struct UnrecordableTests {
    /// Records `payload` into a new ledger: its rejection, or nil once it was recorded. A
    /// rejected payload writes nothing.
    func rejectionOfRecording(_ payload: VerifiedPayload) throws -> VerificationError? {
        let store = try TestLedger()
        do {
            _ = try store.ledger.record(payload, finish: true)
            return nil
        } catch let rejection as VerificationError {
            #expect(try store.count("evidence") == 0)
            #expect(try store.count("events") == 0)
            return rejection
        }
    }

    func reason(ofTransaction token: String) throws -> VerificationError? {
        try rejectionOfRecording(.transaction(try TestChains.verifier().verifyTransaction(token)))
    }

    func token(_ overrides: [String: String?]) throws -> String {
        try JWSSigner(pki: TestChains.standard).sign(payload: Array(TestPayloads.transaction(overrides).utf8))
    }

    @Test(arguments: [Int64(0), 990, Ledger.maximumPriceMilli])
    func aPriceFromZeroToTheLimitIsRecordable(_ price: Int64) throws {
        #expect(try reason(ofTransaction: try TestChains.transaction(price: price)) == nil)
    }

    @Test(arguments: [Int64(-1), Ledger.maximumPriceMilli + 1, Int64.max, Int64.min])
    func aPriceOutsideTheLimitIsRejected(_ price: Int64) throws {
        let rejection = try #require(try reason(ofTransaction: try TestChains.transaction(price: price)))
        #expect(rejection.code == .invalidPayload)
        #expect(
            rejection.message == "the price \(price) is outside 0...1000000000000 milliunits, so it cannot be recorded")
    }

    static let keyRejection =
        "the transactionId is not 1 to 64 printable characters without spaces, so it cannot key a transaction"

    /// An id `finish` could not name would stay pending for ever.
    @Test(arguments: ["", String(repeating: "9", count: 65), "20 00", "2000\u{7}", "2000é"])
    func aTransactionIdThatCannotKeyATransactionIsRejected(_ id: String) throws {
        let rejection = try #require(try reason(ofTransaction: try TestChains.transaction(id: id)))
        #expect(rejection.code == .invalidPayload)
        #expect(rejection.message == Self.keyRejection)
    }

    @Test(arguments: ["0", String(repeating: "9", count: 64), "2000000123456789"])
    func aTransactionIdOfUpTo64PrintableCharactersIsRecordable(_ id: String) throws {
        #expect(try reason(ofTransaction: try TestChains.transaction(id: id)) == nil)
    }

    @Test func aNotificationIsRejectedForItsNestedTransactionsId() throws {
        let refund = try TestChains.notification(
            type: "REFUND", uuid: TestChains.uuid(1), signedDate: TestLedger.reference + TestLedger.hour,
            around: try TestChains.transaction(id: ""))
        let rejection = try #require(
            try rejectionOfRecording(.notification(try TestChains.verifier().verifyNotification(refund))))
        #expect(rejection.code == .invalidPayload)
        #expect(rejection.message == "data.signedTransactionInfo: \(Self.keyRejection)")
    }

    /// The ledger keys a notification's transaction as it keys one the app submits: without a
    /// transactionId, a REFUND would be acknowledged and its refund lost.
    @Test(arguments: ["REFUND", "REFUND_REVERSED", "CONSUMPTION_REQUEST"])
    func aNotificationWhoseTransactionHasNoTransactionIdIsRejected(type: String) throws {
        let nested = try token([
            "transactionId": nil, "revocationDate": TestPayloads.referenceDate, "revocationReason": "0",
            "revocationType": TestPayloads.quoted("REFUND_FULL"),
        ])
        let notification = TestNotification(
            notificationType: type, notificationUUID: TestChains.uuid(5),
            signedDate: TestLedger.reference + TestLedger.hour, environment: "Sandbox", bundleId: "com.example.tips",
            appAppleId: TestChains.appAppleId, signedTransactionInfo: nested)
        let signed = try JWSSigner(pki: TestChains.standard).sign(payload: notification.payloadJSON)

        let rejection = try #require(
            try rejectionOfRecording(.notification(try TestChains.verifier().verifyNotification(signed))))

        #expect(rejection.code == .invalidPayload)
        #expect(rejection.message == "data.signedTransactionInfo: \(Ledger.noTransactionId.message)")
    }

    @Test func aTransactionWithoutPriceOrQuantityIsRecordable() throws {
        #expect(try reason(ofTransaction: try token(["price": nil, "quantity": nil])) == nil)
    }

    @Test(arguments: ["0", "-3"])
    func aQuantityBelowOneIsRejected(_ quantity: String) throws {
        let rejection = try #require(try reason(ofTransaction: try token(["quantity": quantity])))
        #expect(rejection.code == .invalidPayload)
        #expect(rejection.message == "the quantity \(quantity) is not positive, so it cannot be recorded")
    }

    @Test(arguments: ["0", "50000", "100000"])
    func aRevocationPercentageFromNoneToAllIsRecordable(_ percentage: String) throws {
        let token = try token(["revocationPercentage": percentage, "revocationType": "\"REFUND_PRORATED\""])
        #expect(try reason(ofTransaction: token) == nil)
    }

    @Test(arguments: ["-50000", "100001", "150000"])
    func aRevocationPercentageOutsideNoneToAllIsRejected(_ percentage: String) throws {
        let token = try token(["revocationPercentage": percentage, "revocationType": "\"REFUND_PRORATED\""])
        let rejection = try #require(try reason(ofTransaction: token))
        #expect(rejection.code == .invalidPayload)
        #expect(
            rejection.message
                == "the revocationPercentage \(percentage) is outside 0...100000 (milliunits of a percent), "
                + "so it cannot be recorded")
    }

    @Test func aNotificationIsRejectedForItsNestedTransactionsAmounts() throws {
        let verifier = try TestChains.verifier()
        func reason(price: Int64) throws -> VerificationError? {
            let purchase = try TestChains.transaction(price: price)
            let refund = try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: TestLedger.reference + TestLedger.hour,
                around: purchase)
            return try rejectionOfRecording(.notification(try verifier.verifyNotification(refund)))
        }
        #expect(try reason(price: 990) == nil)
        let rejection = try #require(try reason(price: -990))
        #expect(rejection.code == .invalidPayload)
        #expect(rejection.message.hasPrefix("data.signedTransactionInfo: the price -990 is outside"))
    }

    /// A REFUND whose transaction says it was not refunded has nothing to apply, and would
    /// record a transaction never seen as a tip that counts.
    @Test func aRefundWithoutARevocationDateIsRejected() throws {
        let verifier = try TestChains.verifier()
        let purchase = try TestChains.transaction()
        func reason(type: String, edit: @escaping (inout TestTransaction) -> Void) throws -> VerificationError? {
            let notification = try TestChains.notification(
                type: type, uuid: TestChains.uuid(3), signedDate: TestLedger.reference + TestLedger.hour,
                around: purchase, edit: edit)
            return try rejectionOfRecording(.notification(try verifier.verifyNotification(notification)))
        }

        let rejection = try #require(try reason(type: "REFUND") { $0.revocationDate = nil })
        #expect(rejection.code == .invalidPayload)
        #expect(rejection.message == "data.signedTransactionInfo: a REFUND's transaction has no revocationDate")
        #expect(try reason(type: "REFUND") { _ in } == nil)
        // A reversed refund has none, rightly.
        #expect(try reason(type: "REFUND_REVERSED") { _ in } == nil)
    }

    /// Whatever length a signed field has, what the ledger keeps and prints of it is bounded.
    @Test(arguments: [
        "productId", "bundleId", "originalTransactionId", "appTransactionId", "type", "storefront", "storefrontId",
        "inAppOwnershipType", "revocationType",
    ])
    func aTextTheLedgerKeepsIsRecordableUpToTheLimitAndRejectedPastIt(_ field: String) throws {
        let longest = String(repeating: "p", count: Ledger.maximumTextBytes)
        // The bundle id is checked against the configured ones before the ledger sees it.
        func reason(_ text: String) throws -> VerificationError? {
            let signed = try token([field: "\"\(text)\""])
            let verifier = try TestChains.verifier(bundleId: field == "bundleId" ? text : "com.example.tips")
            return try rejectionOfRecording(.transaction(try verifier.verifyTransaction(signed)))
        }
        #expect(try reason(longest) == nil)
        let rejection = try #require(try reason(longest + "é"))
        #expect(rejection.code == .invalidPayload)
        #expect(
            rejection.message == "the \(field) is 258 bytes, over the 256 the ledger keeps, so it cannot be recorded")
    }

    @Test(arguments: ["subtype", "consumptionRequestReason", "nested productId"])
    func aNotificationWithATextPastTheLimitIsRejected(_ field: String) throws {
        let long = String(repeating: "r", count: Ledger.maximumTextBytes + 1)
        let request = try TestChains.notification(
            type: "CONSUMPTION_REQUEST", subtype: field == "subtype" ? long : nil, uuid: TestChains.uuid(4),
            signedDate: TestLedger.reference + TestLedger.hour, around: try TestChains.transaction(),
            consumptionReason: field == "consumptionRequestReason" ? long : "UNINTENDED_PURCHASE"
        ) { transaction in
            if field == "nested productId" { transaction.productId = long }
        }
        let rejection = try #require(
            try rejectionOfRecording(.notification(try TestChains.verifier().verifyNotification(request))))
        #expect(rejection.code == .invalidPayload)
        let name = ["subtype": "subtype", "consumptionRequestReason": "data.consumptionRequestReason"][field]
        let message = "the \(name ?? "productId") is 257 bytes, over the 256 the ledger keeps, so it cannot be recorded"
        #expect(rejection.message == (name == nil ? "data.signedTransactionInfo: " + message : message))
    }

    @Test func aTestNotificationHasNothingToBound() throws {
        let test = try TestChains.notification(type: "TEST", uuid: TestChains.uuid(2))
        #expect(try rejectionOfRecording(.notification(try TestChains.verifier().verifyNotification(test))) == nil)
    }
}
