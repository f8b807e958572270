// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// `testkit transaction --count` and `testkit notification`'s batches: realistic data for load
/// tests, across their internal chunks.
@Suite struct TestkitCountTests {
    @Test func manyTipsComeFromTheAccountPoolInTimeAndIdOrder() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            // More than one 4096-tip chunk, so the pool and the ordering must carry across chunks.
            let result = try await TipLedgerBinary.run(
                [
                    "testkit", "transaction", "--keys", keys, "--count", "5000", "--accounts", "5", "--seed", "9",
                    "--days", "10", "--purchase-date", "2026-06-01T00:00:00Z",
                ],
                in: directory.path)
            #expect(result.exited(0), "\(result.summary)")
            let payloads = try result.out.split(separator: "\n").map { try CompactJWS.payload(of: String($0)) }
            #expect(payloads.count == 5000)
            let accounts = Set(payloads.compactMap { $0["appAccountToken"] as? String })
            #expect(accounts.count == 5)
            let anonymous = payloads.filter { $0["appAccountToken"] == nil }
            #expect(!anonymous.isEmpty && anonymous.count < 500)
            // One install, one app transaction id: the same for every tip of an account.
            var installs: [String: Set<String>] = [:]
            for payload in payloads {
                if let account = payload["appAccountToken"] as? String,
                    let install = payload["appTransactionId"] as? String
                {
                    installs[account, default: []].insert(install)
                }
            }
            #expect(installs.values.allSatisfy { $0.count == 1 })
            #expect(payloads.allSatisfy { $0["appTransactionId"] is String })
            let ids = payloads.compactMap { ($0["transactionId"] as? String).flatMap { UInt64($0) } }
            let dates = payloads.compactMap { ($0["purchaseDate"] as? NSNumber)?.int64Value }
            #expect(ids.count == 5000 && zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
            #expect(dates.count == 5000 && zip(dates, dates.dropFirst()).allSatisfy { $0 <= $1 })
            let end: Int64 = 1_780_272_000_000  // 2026-06-01T00:00:00Z
            #expect(dates.first! >= end - 10 * 86_400_000 && dates.last! <= end)
        }
    }

    /// `--transaction -` signs one notification per transaction on standard input, in order,
    /// blank lines skipped; a line that is no signed transaction is named, and nothing printed.
    @Test func aNotificationIsSignedForEachTransactionOnStandardInput() async throws {
        let keys = try await SharedInputs.shared.keys()
        let tips = try await SharedInputs.shared.tips()
        try await TemporaryDirectory.with { directory in
            let notification = ["testkit", "notification", "--keys", keys, "--type", "REFUND", "--transaction", "-"]
            let three = Array(tips.lines.prefix(3))
            let signed = try await TipLedgerBinary.run(
                notification, input: .text("\n" + three.joined(separator: "\n\n") + "\n"), in: directory.path)
            #expect(signed.exited(0), "\(signed.summary)")
            let about = try signed.outLines.map { line in
                let body = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let payload = try CompactJWS.payload(of: body?["signedPayload"] as? String ?? "")
                let data = payload["data"] as? [String: Any]
                return try CompactJWS.payload(of: data?["signedTransactionInfo"] as? String ?? "")["transactionId"]
                    as? String
            }
            let expected = try three.map { try CompactJWS.payload(of: $0)["transactionId"] as? String }
            #expect(expected.allSatisfy { $0 != nil } && about == expected)
            let verified = try await TipLedgerBinary.run(
                ["verify", "--dry-run"] + SharedInputs.acceptingTestkit(keys: keys), input: .text(signed.out),
                in: directory.path)
            #expect(verified.exited(0), "\(verified.summary)")

            let broken = try await TipLedgerBinary.run(
                notification, input: .text(three[0] + "\n" + three[1] + "\nnot a token\n"), in: directory.path)
            #expect(broken.exited(64), "\(broken.summary)")
            #expect(
                broken.errLines.first?.hasPrefix("error: line 3 of standard input is not a signed transaction") == true)
            #expect(broken.out.isEmpty)
            let none = try await TipLedgerBinary.run(notification, input: .text("\n"), in: directory.path)
            #expect(none.exited(64), "\(none.summary)")
            #expect(none.errLines.first == "error: --transaction - found no signed transaction on standard input")
            let oneUUID = try await TipLedgerBinary.run(
                notification + ["--uuid", "6f1c3a1e-1111-4a4a-8b8b-000000000001"],
                input: .text(three[0] + "\n" + three[1] + "\n"), in: directory.path)
            #expect(oneUUID.exited(64), "\(oneUUID.summary)")
            #expect(
                oneUUID.errLines.first
                    == "error: --uuid names one notification, and standard input has more than one transaction")
            #expect(oneUUID.out.isEmpty)
        }
    }

    /// `--count N` prints N notifications, each with a UUID of its own and, but for TEST, about
    /// a transaction of its own, across more than one signing chunk; all verify.
    @Test(arguments: [("TEST", 4100), ("REFUND", 5)])
    func manyNotificationsEachOfTheirOwn(_ type: String, _ count: Int) async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                ["testkit", "notification", "--keys", keys, "--type", type, "--count", String(count)],
                in: directory.path)
            #expect(result.exited(0), "\(result.summary)")
            let payloads = try result.outLines.map { line in
                let body = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return try CompactJWS.payload(of: body?["signedPayload"] as? String ?? "")
            }
            #expect(payloads.count == count)
            #expect(Set(payloads.compactMap { $0["notificationUUID"] as? String }).count == count)
            #expect(payloads.allSatisfy { $0["notificationType"] as? String == type })
            let transactions = try payloads.compactMap { payload -> String? in
                guard let info = (payload["data"] as? [String: Any])?["signedTransactionInfo"] as? String else {
                    return nil
                }
                return try CompactJWS.payload(of: info)["transactionId"] as? String
            }
            #expect(Set(transactions).count == (type == "TEST" ? 0 : count))
            let verified = try await TipLedgerBinary.run(
                ["verify", "--dry-run"] + SharedInputs.acceptingTestkit(keys: keys), input: .text(result.out),
                in: directory.path)
            #expect(verified.exited(0), "\(verified.summary)")
        }
    }

    /// A notification takes its transaction's environment and app: flags naming others are
    /// refused, since the verifier they describe would reject it. Without them, it verifies.
    @Test func aNotificationAroundATransactionRefusesAnotherEnvironmentOrApp() async throws {
        let keys = try await SharedInputs.shared.keys()
        let tips = try await SharedInputs.shared.tips()
        try await TemporaryDirectory.with { directory in
            let notification = ["testkit", "notification", "--keys", keys, "--type", "REFUND", "--transaction", "-"]
            let input = Subprocess.Input.text(tips.lines[0] + "\n")
            async let otherEnvironment = TipLedgerBinary.run(
                notification + ["--environment", "Production", "--app-apple-id", "5"], input: input,
                in: directory.path)
            async let otherApp = TipLedgerBinary.run(
                notification + ["--bundle-id", "com.example.other"], input: input, in: directory.path)
            async let plain = TipLedgerBinary.run(notification, input: input, in: directory.path)
            let (environment, app, refund) = try await (otherEnvironment, otherApp, plain)
            #expect(environment.exited(64), "\(environment.summary)")
            #expect(environment.errLines.first?.hasPrefix("error: the transaction is signed for Sandbox") == true)
            #expect(app.exited(64), "\(app.summary)")
            #expect(
                app.errLines.first
                    == "error: the transaction is for the bundle id \(SharedInputs.bundleId), which --bundle-id does not list"
            )
            try #require(refund.exited(0), "\(refund.summary)")
            let verified = try await TipLedgerBinary.run(
                ["verify", "--dry-run"] + SharedInputs.acceptingTestkit(keys: keys), input: .text(refund.out),
                in: directory.path)
            #expect(verified.exited(0), "\(verified.summary)")
        }
    }

    /// Xcode and LocalTesting are one environment to the verifier, so to this check too.
    @Test func aLocalTestingTransactionTakesANotificationForXcode() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let tip = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", keys, "--environment", "LocalTesting"], in: directory.path)
            try #require(tip.exited(0), "\(tip.summary)")
            let refund = try await TipLedgerBinary.run(
                [
                    "testkit", "notification", "--keys", keys, "--type", "REFUND", "--transaction", "-",
                    "--environment", "Xcode",
                ], input: .text(tip.out), in: directory.path)
            #expect(refund.exited(0), "\(refund.summary)")
        }
    }
}
