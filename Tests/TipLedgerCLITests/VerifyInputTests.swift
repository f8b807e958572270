// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// `verify --dry-run --format json` on the real App Store vectors in `Tests/Fixtures/real`:
/// one result per non-blank input line, in input order, whatever the lines hold.
@Suite struct VerifyInputTests {
    static let accepting = [
        "verify", "--dry-run", "--format", "json", "--environment", "Sandbox", "--bundle-id",
        "com.loki-project.loki-messenger",
    ]

    static func vector(_ name: String) throws -> String { try Fixtures.text("real/\(name).jws") }

    static func verify(_ input: String) async throws -> ProcessOutput {
        try await TemporaryDirectory.with { directory in
            try await TipLedgerBinary.run(accepting, input: .text(input), in: directory.path)
        }
    }

    @Test func realSandboxTransactionIsAccepted() async throws {
        let result = try await Self.verify(try Self.vector("sandbox-transaction-04") + "\n")
        #expect(result.exited(0), "\(result.summary)")
        #expect(result.err.isEmpty)
        let lines = try result.jsonLines()
        try #require(lines.count == 1)
        let line = lines[0]
        #expect(JSONValue.int64(line["line"]) == 1)
        #expect(line["ok"] as? Bool == true)
        #expect(line["kind"] as? String == "transaction")
        #expect(line["environment"] as? String == "Sandbox")
        #expect(line["transactionId"] as? String == "2000001024998954")
        #expect(line["productId"] as? String == "com.getsession.org.pro_sub")
        #expect(line["outcome"] as? String == "verified")
        #expect(line["state"] == nil, "a dry run records nothing, so it has no state")
    }

    /// A derived negative vector and the error code it must get.
    struct Negative: Sendable, CustomTestStringConvertible {
        let file: String
        let error: String
        let appleStatus: String
        var testDescription: String { file }
    }

    static let negatives = [
        Negative(file: "derived-tampered-payload", error: "bad_signature", appleStatus: "VERIFICATION_FAILURE"),
        Negative(file: "derived-flipped-signature", error: "bad_signature", appleStatus: "VERIFICATION_FAILURE"),
        Negative(file: "derived-truncated-signature", error: "bad_signature", appleStatus: "VERIFICATION_FAILURE"),
        Negative(file: "derived-der-signature", error: "bad_signature", appleStatus: "VERIFICATION_FAILURE"),
        Negative(file: "derived-swapped-signature", error: "bad_signature", appleStatus: "VERIFICATION_FAILURE"),
        Negative(
            file: "derived-x5c-missing-intermediate", error: "invalid_chain_length", appleStatus: "INVALID_CHAIN_LENGTH"
        ),
        Negative(file: "derived-alg-none", error: "unsupported_algorithm", appleStatus: "INVALID_JWT_FORMAT"),
    ]

    @Test(arguments: negatives)
    func derivedVectorIsRejected(_ negative: Negative) async throws {
        let result = try await Self.verify(try Self.vector(negative.file) + "\n")
        #expect(result.exited(1), "\(result.summary)")
        #expect(result.err.isEmpty)
        let line = try #require(try result.jsonLines().first)
        #expect(line["ok"] as? Bool == false)
        #expect(line["error"] as? String == negative.error)
        #expect(line["appleStatus"] as? String == negative.appleStatus)
        #expect((line["message"] as? String)?.isEmpty == false)
    }

    /// What one input line must produce.
    enum Expected {
        case ok(kind: String)
        case rejected(String)
    }

    @Test func mixedInputGivesOneResultPerNonBlankLineInOrder() async throws {
        let transaction = try Self.vector("sandbox-transaction-04")
        let refunded = try Self.vector("sandbox-transaction-05-revoked")
        let webhook = #"{"signedPayload":"\#(try Self.vector("sandbox-notification-03"))"}"#
        let spacedWebhook = #"{ "signedPayload" : "\#(try Self.vector("sandbox-notification-01"))" }"#
        let notification = try Self.vector("sandbox-notification-04")
        let renewal = try Self.vector("sandbox-renewal-02")
        let pieces: [(String, Expected?)] = [
            (transaction, .ok(kind: "transaction")),
            ("", nil),
            ("garbage", .rejected("malformed_jws")),
            (try Self.vector("derived-tampered-payload"), .rejected("bad_signature")),
            ("   \t ", nil),
            (webhook, .ok(kind: "notification")),
            (try Self.vector("sandbox-transaction-01"), .rejected("wrong_bundle_id")),
            (renewal, .ok(kind: "renewalInfo")),
            (try Self.vector("derived-alg-none"), .rejected("unsupported_algorithm")),
            (spacedWebhook, .ok(kind: "notification")),
            (notification, .ok(kind: "notification")),
            ("{\"signedPayload\":42}", .rejected("malformed_jws")),
            (refunded, .ok(kind: "transaction")),
            ("", nil),
        ]
        // Three rounds, so bad lines sit between good ones throughout; the last line has no newline.
        let rounds = Array(repeating: pieces, count: 3).joined()
        let input = rounds.map(\.0).joined(separator: "\n") + "\n" + transaction
        var expected: [(Int, Expected)] = []
        for (index, piece) in rounds.enumerated() {
            if let outcome = piece.1 { expected.append((index + 1, outcome)) }
        }
        expected.append((rounds.count + 1, .ok(kind: "transaction")))
        let result = try await Self.verify(input)
        #expect(result.exited(1), "\(result.summary)")
        #expect(result.err.isEmpty)
        let lines = try result.jsonLines()
        try #require(lines.count == expected.count, "\(result.out)")
        for (line, (number, outcome)) in zip(lines, expected) {
            #expect(JSONValue.int64(line["line"]) == Int64(number))
            switch outcome {
            case .ok(let kind):
                #expect(line["ok"] as? Bool == true, "line \(number): \(line)")
                #expect(line["kind"] as? String == kind, "line \(number): \(line)")
            case .rejected(let code):
                #expect(line["ok"] as? Bool == false, "line \(number): \(line)")
                #expect(line["error"] as? String == code, "line \(number): \(line)")
            }
        }
    }

    @Test func overLongLinesAreTooLargeWithoutStoppingTheRun() async throws {
        let transaction = try Self.vector("sandbox-transaction-04")
        let justOver = String(repeating: "A", count: 64 * 1024 + 1)
        let huge = transaction + "." + String(repeating: "B", count: 300 * 1024)
        let input = [transaction, justOver, transaction, huge, transaction].joined(separator: "\n") + "\n"
        let result = try await Self.verify(input)
        #expect(result.exited(1), "\(result.summary)")
        let lines = try result.jsonLines()
        try #require(lines.count == 5, "\(result.out)")
        #expect(lines.map { JSONValue.int64($0["line"]) } == [1, 2, 3, 4, 5])
        #expect(lines.map { $0["ok"] as? Bool } == [true, false, true, false, true])
        #expect(lines[1]["error"] as? String == "too_large")
        #expect(lines[3]["error"] as? String == "too_large")
        #expect(lines[3]["appleStatus"] as? String == "INVALID_JWT_FORMAT")
    }

    @Test func lineOfExactly64KiBIsNotTooLarge() async throws {
        let exactly = String(repeating: "A", count: 64 * 1024)
        let result = try await Self.verify(exactly + "\n")
        let line = try #require(try result.jsonLines().first)
        #expect(line["error"] as? String == "malformed_jws", "64 KiB is the limit itself, not over it")
    }

    /// A byte order mark an editor put at the start of a file is not part of the first line;
    /// anywhere else it is, and the line is not a token.
    @Test func aByteOrderMarkAtTheStartOfTheInputIsSkipped() async throws {
        let token = try Self.vector("sandbox-transaction-04")
        let result = try await Self.verify("\u{FEFF}\(token)\n\u{FEFF}\(token)\n")
        let lines = try result.jsonLines()
        try #require(lines.count == 2, "\(result.summary)")
        #expect(lines[0]["ok"] as? Bool == true)
        #expect(lines[1]["ok"] as? Bool == false)
        #expect(result.exited(1))
    }

    @Test func crlfLineEndingsWork() async throws {
        let transaction = try Self.vector("sandbox-transaction-04")
        let webhook = #"{"signedPayload":"\#(try Self.vector("sandbox-notification-03"))"}"#
        let input = [transaction, "", webhook, "garbage", transaction].joined(separator: "\r\n") + "\r\n"
        let result = try await Self.verify(input)
        #expect(result.exited(1), "\(result.summary)")
        let lines = try result.jsonLines()
        #expect(lines.map { JSONValue.int64($0["line"]) } == [1, 3, 4, 5])
        #expect(lines.map { $0["ok"] as? Bool } == [true, true, false, true])
        #expect(lines[1]["notificationType"] as? String == "REFUND")
    }

    @Test func webhookBodiesAreDetectedAsNotifications() async throws {
        let bare = try Self.vector("sandbox-notification-03")
        let input = #"{"signedPayload":"\#(bare)"}"# + "\n" + bare + "\n"
        let result = try await Self.verify(input)
        #expect(result.exited(0), "\(result.summary)")
        let lines = try result.jsonLines()
        try #require(lines.count == 2)
        for line in lines {
            #expect(line["ok"] as? Bool == true)
            #expect(line["kind"] as? String == "notification")
            #expect(line["notificationType"] as? String == "REFUND")
            #expect(JSONValue.isNull(line["subtype"]))
            #expect(line["notificationUUID"] as? String == "caeda1df-9950-458d-87a7-93bb009e7391")
            #expect(line["transactionId"] as? String == "2000001032604840")
            #expect(line["outcome"] as? String == "verified")
        }
    }
}
