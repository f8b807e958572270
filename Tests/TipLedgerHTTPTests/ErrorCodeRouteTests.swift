// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

/// Every error code of docs/verification.md comes out of both posting routes as the verifier gives it,
/// with its Apple status: 422 for a submitted transaction, 400 for a notification (the App Store
/// must not retry it); nothing of it reaches the ledger.
@Suite struct ErrorCodeRouteTests {
    /// A transaction names no appAppleId, so `wrong_app_apple_id` comes only from notifications.
    static let transactionCodes = TestChains.offlineCodes.filter { $0 != .wrongAppAppleId }

    @Test(arguments: transactionCodes)
    func aRejectedTransactionIsAnswered422WithItsCode(_ code: VerificationError.Code) throws {
        let token = try #require(try TestChains.rejectedToken(code))
        let harness = try ServiceHarness(verifier: TestChains.rejectionVerifier)

        let response = harness.request("POST", "/v1/transactions", body: Array(token.utf8))

        try expect(response, status: 422, code: code, harness: harness)
    }

    @Test(arguments: TestChains.offlineCodes)
    func aRejectedNotificationIsAnswered400WithItsCode(_ code: VerificationError.Code) throws {
        let token = try #require(try TestChains.rejectedToken(code, notification: true))
        let harness = try ServiceHarness(verifier: TestChains.rejectionVerifier)

        let response = harness.request("POST", "/v1/notifications", body: Array(WebhookBody.wrapping(token).utf8))

        try expect(response, status: 400, code: code, harness: harness)
    }

    private func expect(
        _ response: HTTPResponse, status: Int, code: VerificationError.Code, harness: ServiceHarness,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, sourceLocation: sourceLocation)
        let body = try jsonObject(response)
        #expect(body["error"] as? String == code.rawValue, sourceLocation: sourceLocation)
        #expect(body["appleStatus"] as? String == code.appleStatus, sourceLocation: sourceLocation)
        for table in ["evidence", "transactions", "notifications", "events"] {
            #expect(try harness.count(table) == 0, "\(table)", sourceLocation: sourceLocation)
        }
    }
}
