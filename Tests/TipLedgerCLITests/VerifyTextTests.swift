// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// `verify`'s text form says in words what its JSON form says in fields, line for line, for
/// every kind of result: recorded, applied, a repeat answered from the ledger, a dry run's
/// verdict and a rejection.
@Suite struct VerifyTextTests {
    @Test func theTextFormSaysWhatTheJSONFormSays() async throws {
        try await TemporaryDirectory.with { directory in
            let tipledger = EndToEndTests.Runner(directory: directory)
            try #require(try await tipledger(["testkit", "init", "--out", "keys"]).exited(0))
            let signing = try await tipledger([
                "testkit", "transaction", "--keys", "keys", "--bundle-id", SharedInputs.bundleId, "--environment",
                "Sandbox", "--count", "3", "--seed", "41",
            ])
            try #require(signing.exited(0), "\(signing.summary)")
            let tips = try signing.outLines.map(SignedTip.init)
            let input = [
                tips[0].token, tips[1].token,
                try await tipledger.notification("REFUND", about: tips[0], at: Date()),
                try await tipledger.notification("CONSUMPTION_REQUEST", about: tips[1], at: Date()),
                try await tipledger.notification("REFUND_DECLINED", about: tips[2], at: Date()),
                "not a token",
            ].joined(separator: "\n")
            let accept = SharedInputs.acceptingTestkit(keys: "keys")

            // Two ledgers take the same lines in the same order, one answering in text and one
            // in JSON: first new, then all repeats; then a dry run.
            var outcomes: Set<String> = []
            for options in [["--db", "L"], ["--db", "L"], ["--dry-run"]] {
                func run(_ format: String) async throws -> ProcessOutput {
                    let arguments = options.map { $0 == "L" ? "\(format).sqlite" : $0 }
                    return try await tipledger(
                        ["verify", "--format", format] + arguments + accept, input: .text(input + "\n"))
                }
                let text = try await run("text")
                let json = try await run("json")
                #expect(text.exited(1) && json.exited(1), "\(text.summary)\n\(json.summary)")
                let objects = try json.jsonLines()
                try #require(text.outLines.count == objects.count + 1, "\(text.summary)")
                for (line, object) in zip(text.outLines, objects) {
                    #expect(line == Self.text(of: object))
                    outcomes.insert(object["outcome"] as? String ?? object["error"] as? String ?? "?")
                }
                #expect(text.outLines.last == "6 lines: 5 accepted, 1 rejected")
            }
            #expect(outcomes == ["recorded", "applied", "duplicate", "verified", "malformed_jws"])
        }
    }

    /// The text line docs/cli.md gives for one JSON result.
    static func text(of result: [String: Any]) -> String {
        func field(_ name: String) -> String { result[name] as? String ?? "-" }
        let line = JSONValue.int64(result["line"]).map(String.init) ?? "?"
        guard result["ok"] as? Bool == true else {
            return "line \(line): rejected \(field("error")) (\(field("appleStatus"))): \(field("message"))"
        }
        var words = ["line \(line): ok", field("kind"), field("environment")]
        if field("kind") == "notification" {
            let subtype = result["subtype"] as? String
            words += [field("notificationType") + (subtype.map { "/\($0)" } ?? ""), field("notificationUUID")]
            if let id = result["transactionId"] as? String { words.append("transaction \(id)") }
        } else {
            words.append(field("transactionId"))
            if let product = result["productId"] as? String { words.append(product) }
        }
        words.append(field("outcome"))
        if let state = result["state"] as? String { words.append("(\(state))") }
        return words.joined(separator: " ")
    }
}
