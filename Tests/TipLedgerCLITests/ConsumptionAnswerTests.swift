// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerTestSupport

/// `tipledger consumption` answering consumption requests (Send Consumption Information v2)
/// from the ledger: the exact bodies, nothing without consent, once per request, never past
/// the deadline.
@Suite struct ConsumptionAnswerTests {
    /// A finished tip and a pending one, each with a consumption request still open, and a
    /// finished one whose request is 13 hours old (its 12-hour deadline passed).
    static let finished = "7000000000000001"
    static let pending = "7000000000000002"
    static let expired = "7000000000000003"

    static let deliveredBody =
        #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false,"#
        + #""consumptionPercentage":100000}"#
    static let undeliveredBody =
        #"{"customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","sampleContentProvided":false,"#
        + #""consumptionPercentage":0}"#

    /// Records the three tips and their requests with `verify`, as the app and the App Store
    /// would have posted them.
    static func recordRequests(_ scenario: APIScenario) async throws {
        let tips = try [finished, pending, expired].map { try scenario.tip($0, hoursAgo: 20) }
        var requests: [String] = []
        for (index, (tip, hoursAgo)) in zip(tips, [1, 2, 13] as [Int64]).enumerated() {
            requests.append(
                try scenario.notification("CONSUMPTION_REQUEST", number: 700 + index, hoursAgo: hoursAgo, about: tip))
        }
        let delivered = [tips[0], tips[2]] + requests
        for (lines, options) in [(delivered, [String]()), ([tips[1]], ["--no-finish"])] {
            let result = try await scenario.run(
                ["verify"] + options, api: false, input: .text(lines.joined(separator: "\n") + "\n"))
            try #require(result.exited(0), "\(result.summary)")
        }
    }

    /// The bodies the fake received, by transaction id.
    static func sentBodies(_ scenario: APIScenario) -> [String: JSONObject] {
        var bodies: [String: JSONObject] = [:]
        for request in scenario.requests(.sendConsumptionInformation) {
            bodies[request.parameter ?? ""] = request.body
        }
        return bodies
    }

    static func object(_ text: String) throws -> JSONObject {
        try #require(try JSONParser.parse(Array(text.utf8)).objectValue)
    }

    @Test func theAnswersCarryTheExactV2BodyOfAFinishedAndAPendingTip() async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            let result = try await scenario.run(["consumption", "--customers-consented"])
            #expect(result.exited(0), "\(result.summary)")
            let bodies = Self.sentBodies(scenario)
            #expect(bodies.count == 2, "the expired request is not answered: \(bodies.keys)")
            #expect(bodies[Self.finished] == (try Self.object(Self.deliveredBody)))
            #expect(bodies[Self.pending] == (try Self.object(Self.undeliveredBody)))
            #expect(
                scenario.requests(.sendConsumptionInformation).allSatisfy {
                    $0.headers["Content-Type"] == "application/json"
                })
            let recorded = try await SQLiteShell.rows(
                "ledger.sqlite", "SELECT transaction_id, body, apple_status FROM consumption_answers ORDER BY 1",
                in: scenario.directory.path)
            #expect(
                recorded == [
                    "\(Self.finished)|\(Self.deliveredBody)|202", "\(Self.pending)|\(Self.undeliveredBody)|202",
                ])
            #expect(result.out.contains("answered Production transaction \(Self.finished): Apple took it (202)"))
        }
    }

    @Test(arguments: [
        ("DECLINE", #","refundPreference":"DECLINE"}"#), ("grant_full", #","refundPreference":"GRANT_FULL"}"#),
    ])
    func aRefundPreferenceGoesIntoTheBody(_ preference: String, ending: String) async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            let result = try await scenario.run(
                ["consumption", "--customers-consented"], environment: ["TIPLEDGER_REFUND_PREFERENCE": preference])
            #expect(result.exited(0), "\(result.summary)")
            let body = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT body FROM consumption_answers WHERE transaction_id = '\(Self.finished)'",
                in: scenario.directory.path)
            #expect(body == String(Self.deliveredBody.dropLast()) + ending)
        }
    }

    @Test(arguments: [[:], ["TIPLEDGER_CUSTOMERS_CONSENTED": "0"]])
    func nothingIsSentWithoutConsent(_ environment: [String: String]) async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            let result = try await scenario.run(["consumption"], environment: environment)
            #expect(result.exited(0), "\(result.summary)")
            #expect(scenario.fake.arrivals == 0)
            #expect(
                result.errLines.first?.hasPrefix(
                    "not answering 2 open consumption requests: customers' consent to share consumption data is not "
                        + "configured") == true, "\(result.err)")
            #expect(result.err.contains("hint: once your customers consented"))
            #expect(result.outLines.filter { $0.hasSuffix("open") }.count == 2, "\(result.out)")
            let answers = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT count(*) FROM consumption_answers", in: scenario.directory.path)
            #expect(answers == "0")
        }
    }

    @Test func aRequestIsAnsweredOnceWhenConsumptionRunsTwice() async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            let first = try await scenario.run(["consumption", "--customers-consented"])
            let second = try await scenario.run(["consumption", "--customers-consented"])
            #expect(first.exited(0) && second.exited(0), "\(first.summary)\n\(second.summary)")
            #expect(scenario.requests(.sendConsumptionInformation).count == 2)
            #expect(!second.out.contains("answered"), "\(second.out)")
            #expect(second.outLines.filter { $0.contains("accepted (202)") }.count == 2, "\(second.out)")
        }
    }

    @Test func aRequestPastItsDeadlineIsNotAnswered() async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            let result = try await scenario.run(["consumption", "--customers-consented", "--all", "--format", "json"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(!Self.sentBodies(scenario).keys.contains(Self.expired))
            let listed = try result.jsonLines()
            let expired = try #require(listed.first { $0["transactionId"] as? String == Self.expired })
            #expect(expired["status"] as? String == "expired")
            #expect(JSONValue.isNull(expired["body"]))
            #expect(listed.filter { $0["status"] as? String == "accepted" }.count == 2)
        }
    }

    @Test func anAnswerAppleRefusesIsRecordedAndNotSentAgain() async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            scenario.fake.reply(.appleError(status: 400, code: 4_000_035, message: "Invalid customer consented."))
            let first = try await scenario.run(["consumption", "--customers-consented"])
            #expect(first.exited(1), "\(first.summary)")
            #expect(first.err.contains("InvalidCustomerConsentedError (4000035)"), "\(first.err)")
            let second = try await scenario.run(["consumption", "--customers-consented"])
            #expect(second.exited(0), "\(second.summary)")
            #expect(scenario.requests(.sendConsumptionInformation).count == 2, "the refused one is not sent again")
            #expect(second.outLines.filter { $0.contains("refused (400)") }.count == 1, "\(second.out)")
        }
    }

    /// Apple lists AccountNotFoundRetryableError among the errors to retry: still answered so
    /// after every attempt, the call failed, and the request is sent again on the next run
    /// rather than recorded as refused.
    @Test func anAnswerStillFailingWithARetryableAppleErrorIsSentAgainNextTime() async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            for _ in 1...5 {
                scenario.fake.reply(.appleError(status: 404, code: 4_040_002, message: "Account not found."))
            }
            let first = try await scenario.run(["consumption", "--customers-consented"])
            #expect(first.exited(69), "Apple failed to answer: \(first.summary)")
            #expect(first.err.contains("AccountNotFoundRetryableError (4040002)"), "\(first.err)")
            let failed = try #require(scenario.requests(.sendConsumptionInformation).first?.parameter)
            let second = try await scenario.run(["consumption", "--customers-consented"])
            #expect(second.exited(0), "\(second.summary)")
            let sent = scenario.requests(.sendConsumptionInformation).compactMap(\.parameter)
            #expect(sent.count == 7, "five attempts, then both requests: \(sent)")
            #expect(sent.dropFirst(5).contains(failed), "the failed request is sent again: \(sent)")
            #expect(second.outLines.filter { $0.contains("accepted (202)") }.count == 2, "\(second.out)")
        }
    }

    @Test func aDryRunPrintsTheBodiesAndSendsNothing() async throws {
        try await APIScenario.with { scenario in
            try await Self.recordRequests(scenario)
            let result = try await scenario.run(["consumption", "--customers-consented", "--dry-run"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(scenario.fake.arrivals == 0)
            #expect(
                result.outLines.prefix(2) == [
                    // Soonest deadline first: the pending tip's request is the older.
                    "would answer (Production): PUT /inApps/v2/transactions/consumption/\(Self.pending) "
                        + Self.undeliveredBody,
                    "would answer (Production): PUT /inApps/v2/transactions/consumption/\(Self.finished) "
                        + Self.deliveredBody,
                ], "\(result.out)")
        }
    }

    @Test func aProratedRefundPreferenceIsRefused() async throws {
        try await APIScenario.with { scenario in
            let result = try await scenario.run(["consumption", "--refund-preference", "GRANT_PRORATED"])
            #expect(result.exited(64), "\(result.summary)")
            #expect(
                result.err.hasPrefix("error: --refund-preference takes DECLINE or GRANT_FULL, not 'GRANT_PRORATED'"))
        }
    }
}
