// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerTestSupport

extension ServeLiveTests {
    /// One size limit, the token's, whichever way a token comes: the largest a token may be is
    /// verified every way it can arrive, and one a byte larger is `too_large` every way, never
    /// the transport's 413. On `verify`'s input: a transaction and a notification as lines, the
    /// notification as a webhook body. Over HTTP: the transaction raw, with a trailing newline
    /// (LF or CR LF) and as `{"signedTransaction":...}`, the notification as
    /// `{"signedPayload":...}` with and without a newline.
    @Test(arguments: [0, 1])
    func theLargestTokenIsTakenEveryWayAndOneByteMoreIsTooLargeEveryWay(bytesOver: Int) throws {
        let size = VerificationPolicy.maximumTokenBytes + bytesOver
        let transaction = try TestJWS.sign(byteCount: size) {
            TestPayloads.transaction(["padding": TestPayloads.quoted($0)])
        }
        let notification = try TestJWS.sign(byteCount: size) {
            TestPayloads.notification(["padding": TestPayloads.quoted($0)])
        }
        let webhookBody = WebhookBody.wrapping(notification)
        let service = try LiveService()

        let posted = [
            ("/v1/transactions", transaction), ("/v1/transactions", transaction + "\n"),
            ("/v1/transactions", transaction + "\r\n"),
            ("/v1/transactions", #"{"signedTransaction":"\#(transaction)"}"#),
            ("/v1/notifications", webhookBody), ("/v1/notifications", webhookBody + "\n"),
        ]
        let overHTTP = try posted.map { path, body in
            try verdict(of: service.connect().exchange("POST", path, body: Array(body.utf8)))
        }
        let lines = [transaction, notification, webhookBody].joined(separator: "\n") + "\n"
        let run = try service.runCommand(["verify", "--dry-run", "--format", "json"], input: Array(lines.utf8))
        let onTheCommandLine = try verdicts(of: run.output)
        let stopped = service.stop()

        #expect(transaction.utf8.count == size && notification.utf8.count == size)
        let expected = bytesOver == 0 ? "ok" : "too_large"
        #expect(overHTTP == Array(repeating: expected, count: posted.count))
        #expect(onTheCommandLine == Array(repeating: expected, count: 3), "\(run.errors)")
        #expect(stopped == 0, "\(service.diagnostics)")
    }

    /// The same bytes as a line of `verify`'s input (with its line ending) or as an HTTP body
    /// are taken alike up to the input limit, and refused alike one byte over it: a webhook
    /// body padded with the spaces JSON allows after it.
    @Test(arguments: [0, 1])
    func anInputAtTheLimitIsTakenBothWaysAndOneByteMoreNeither(bytesOver: Int) throws {
        let notification = try TestChains.notification(type: "TEST", uuid: TestChains.uuid(900))
        let body = WebhookBody.wrapping(notification)
        let padding = VerificationPolicy.maximumInputBytes + bytesOver - body.utf8.count - 1
        let input = Array((body + String(repeating: " ", count: padding) + "\n").utf8)
        let service = try LiveService()

        let response = try service.connect().exchange("POST", "/v1/notifications", body: input)
        let run = try service.runCommand(["verify", "--dry-run", "--format", "json"], input: input)
        let stopped = service.stop()

        #expect(input.count == VerificationPolicy.maximumInputBytes + bytesOver)
        if bytesOver == 0 {
            #expect(response.status == 200)
            #expect(try verdicts(of: run.output) == ["ok"], "\(run.errors)")
        } else {
            #expect(response.status == 413)
            #expect(try verdict(of: response) == "body_too_large")
            #expect(try verdicts(of: run.output) == ["too_large"], "\(run.errors)")
        }
        #expect(stopped == 0, "\(service.diagnostics)")
    }
}

/// "ok" for a 200, else the error code of the answer.
private func verdict(of response: LoopbackResponse) throws -> String {
    response.status == 200 ? "ok" : try jsonObject(response.body)["error"] as? String ?? "status \(response.status)"
}

/// "ok" or the error code of each line `verify --format json` printed.
private func verdicts(of output: String) throws -> [String] {
    try output.split(separator: "\n").map { line in
        let result = try jsonObject(Array(line.utf8))
        return result["ok"] as? Bool == true ? "ok" : result["error"] as? String ?? "\(result)"
    }
}
