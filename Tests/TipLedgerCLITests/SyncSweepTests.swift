// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerTestSupport

/// `tipledger sync` sweeping the fake's notification history: interrupted by SIGKILL and
/// resumed, it leaves exactly the ledger of one uninterrupted sweep; sweeping again changes
/// nothing; forged payloads are rejected and counted, never recorded; Apple's history window
/// and rate limit are kept.
@Suite struct SyncSweepTests {
    /// The history's genuine notifications: 300 ONE_TIME_CHARGEs (tips the app never posted),
    /// a REFUND for every tenth tip a day later, a CONSUMPTION_REQUEST for every 25th and a
    /// REFUND_DECLINED for half of those (the ones not refunded), and a TEST; all sent 2 to 17
    /// days ago.
    static let tipCount = 300
    static let genuineCount = 300 + 30 + 12 + 6 + 1
    /// Forged notifications among them: five signed by a chain nobody trusts, five whose
    /// signature was replaced.
    static let forgedCount = 10

    /// Fills `scenario`'s store with the history; returns how many notifications it holds.
    @discardableResult
    static func fillHistory(_ scenario: APIScenario) throws -> Int {
        var history: [ScriptedAppStore.Notification] = []
        func add(_ signed: String, hoursAgo: Int64) {
            history.append(.init(signedPayload: signed, sentAt: scenario.time(hoursAgo: hoursAgo)))
        }
        for number in 1...tipCount {
            let hoursAgo = Int64(400 - number)
            let tip = try scenario.tip(String(4_000_000_000_000_000 + number), hoursAgo: hoursAgo)
            add(
                try scenario.notification("ONE_TIME_CHARGE", number: number, hoursAgo: hoursAgo, about: tip),
                hoursAgo: hoursAgo)
            if number % 10 == 0 {
                add(
                    try scenario.notification("REFUND", number: 10_000 + number, hoursAgo: hoursAgo - 24, about: tip),
                    hoursAgo: hoursAgo - 24)
            }
            if number % 25 == 0 {
                add(
                    try scenario.notification(
                        "CONSUMPTION_REQUEST", number: 20_000 + number, hoursAgo: hoursAgo - 2, about: tip),
                    hoursAgo: hoursAgo - 2)
            }
            if number % 50 == 25 {
                add(
                    try scenario.notification(
                        "REFUND_DECLINED", number: 30_000 + number, hoursAgo: hoursAgo - 30, about: tip),
                    hoursAgo: hoursAgo - 30)
            }
        }
        add(try scenario.notification("TEST", number: 40_000, hoursAgo: 50), hoursAgo: 50)
        let forger = try LiveTestChain(directory: scenario.directory.file("forger"))
        for number in 1...forgedCount {
            let hoursAgo = Int64(number * 37)
            let id = String(4_100_000_000_000_000 + number)
            let signed: String
            if number <= forgedCount / 2 {
                let tip = try forger.transaction(id: id, purchaseDate: scenario.time(hoursAgo: hoursAgo))
                signed = try forger.notification(
                    "ONE_TIME_CHARGE", uuid: TestChains.uuid(50_000 + number),
                    signedDate: scenario.time(hoursAgo: hoursAgo), about: tip)
            } else {
                let tip = try scenario.tip(id, hoursAgo: hoursAgo)
                let genuine = try scenario.notification(
                    "ONE_TIME_CHARGE", number: 50_000 + number, hoursAgo: hoursAgo, about: tip)
                signed = TestJWS.replacingSignature(of: genuine, with: [UInt8](repeating: 7, count: 64))
            }
            add(signed, hoursAgo: hoursAgo)
        }
        scenario.store.add(history)
        return history.count
    }

    @Test func aSweepKilledMidwayAndResumedLeavesTheLedgerOfOneUninterruptedSweep() async throws {
        try await APIScenario.with { scenario in
            let total = try Self.fillHistory(scenario)
            let pages = (total + ScriptedAppStore.pageSize - 1) / ScriptedAppStore.pageSize
            // The ninth page's request waits until the sweep asking for it was killed: the kill
            // comes mid-sweep, however fast the machine.
            let gate = RequestGate()
            // The responder holds the store, not the scenario: the fake holds the responder, so a
            // scenario in it would keep the fake, its server and every page alive for good.
            let store = scenario.store
            scenario.fake.respond { request in
                if request.endpoint == .getNotificationHistory, let token = request.query["paginationToken"],
                    let offset = Int(token.split(separator: "_").last ?? ""), offset >= 8 * ScriptedAppStore.pageSize
                {
                    gate.pass()
                }
                return store.respond(request)
            }
            let sync = ["sync", "--format", "json"]
            let killed = try await scenario.run(sync, database: "killed.sqlite", killWhen: { $0 >= 6 })
            gate.open()
            try #require(
                killed.signaled && killed.status == SIGKILL, "sync must be killed mid-sweep: \(killed.summary)")
            let stored = try await SQLiteShell.rows(
                "killed.sqlite", "SELECT running, pages, cursor FROM sync_cursors", in: scenario.directory.path)
            let fields = try #require(stored.first).split(separator: "|").map(String.init)
            #expect(stored.count == 1 && fields[0] == "1", "the sweep is recorded as under way: \(stored)")
            let storedPages = try #require(Int(fields[1]))
            #expect((1..<pages).contains(storedPages))
            let recorded = try await SQLiteShell.value(
                "killed.sqlite", "SELECT count(*) FROM notifications", in: scenario.directory.path)
            #expect(Int(recorded) ?? 0 > 0 && Int(recorded) ?? 0 < Self.genuineCount)

            let before = scenario.requests(.getNotificationHistory).count
            let resumed = try await scenario.run(sync, database: "killed.sqlite")
            #expect(!resumed.signaled && [0, 1].contains(resumed.status), "\(resumed.summary)")
            #expect(resumed.err.contains("resuming the sweep"), "\(resumed.err)")
            let resumedRequests = scenario.requests(.getNotificationHistory).dropFirst(before)
            #expect(resumedRequests.first?.query["paginationToken"] == fields[2], "it goes on after the stored page")
            #expect(resumedRequests.count == pages - storedPages)

            let clean = try await scenario.run(sync, database: "clean.sqlite")
            #expect(clean.exited(1), "forged payloads make the exit status 1: \(clean.summary)")
            let summary = try #require(try clean.jsonLines().last)
            #expect(JSONValue.int64(summary["notifications"]) == Int64(total))
            #expect(JSONValue.int64(summary["rejected"]) == Int64(Self.forgedCount))
            #expect(JSONValue.int64(summary["pages"]) == Int64(pages))
            #expect(summary["completed"] as? Bool == true)
            let rejections = try clean.jsonLines().filter { $0["ok"] as? Bool == false }
            #expect(rejections.count == Self.forgedCount)
            #expect(
                Set(rejections.compactMap { $0["error"] as? String }) == ["untrusted_chain", "bad_signature"],
                "\(rejections)")

            async let killedSnapshot = LedgerSnapshot.read("killed.sqlite", in: scenario.directory.path)
            async let cleanSnapshot = LedgerSnapshot.read("clean.sqlite", in: scenario.directory.path)
            let (afterResume, uninterrupted) = try await (killedSnapshot, cleanSnapshot)
            #expect(afterResume == uninterrupted)
            #expect(uninterrupted.notifications == Self.genuineCount, "forged notifications are not recorded")
            #expect(uninterrupted.transactions.count == Self.tipCount)
            #expect(uninterrupted.duplicateTransactions == 0)
            #expect(uninterrupted.consumptionRequests == 12)
            #expect(uninterrupted.eventsByKind["refunded"] == 30)
            // The tips the app never posted wait to be finished.
            let pending = try await SQLiteShell.value(
                "clean.sqlite", "SELECT count(*) FROM transactions WHERE state = 'pending'", in: scenario.directory.path
            )
            #expect(pending == String(Self.tipCount - 30))

            // Sweeping again changes nothing: from where the last sweep ended, then the whole history.
            let again = try await scenario.run(sync, database: "clean.sqlite")
            #expect(again.exited(0), "\(again.summary)")
            let everything = try await scenario.run(sync + ["--since", "30d"], database: "clean.sqlite")
            #expect(everything.exited(1), "\(everything.summary)")
            let repeated = try #require(try everything.jsonLines().last)
            #expect(JSONValue.int64(repeated["duplicate"]) == Int64(Self.genuineCount))
            #expect(JSONValue.int64(repeated["rejected"]) == Int64(Self.forgedCount))
            #expect(try await LedgerSnapshot.read("clean.sqlite", in: scenario.directory.path) == uninterrupted)
            #expect(
                scenario.fake.rejections.isEmpty, "every request was as Apple wants it: \(scenario.fake.rejections)")
        }
    }

    @Test(arguments: [(AppStoreEnvironment.production, Int64(180)), (AppStoreEnvironment.sandbox, Int64(30))])
    func aStartOlderThanApplesHistoryIsMovedUpWithANote(environment: AppStoreEnvironment, days: Int64) async throws {
        try await APIScenario.with(environment) { scenario in
            let result = try await scenario.run(["sync", "--since", "400d"])
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.err.contains("Apple keeps \(days) days of notification history"), "\(result.err)")
            let request = try #require(scenario.requests(.getNotificationHistory).first)
            guard case .integer(let start)? = request.body?["startDate"] else {
                Issue.record("no startDate in \(String(describing: request.body))")
                return
            }
            #expect(start >= LiveTestChain.now - days * 86_400_000 - 60_000)
            #expect(start < LiveTestChain.now - (days - 1) * 86_400_000)
        }
    }

    /// Apple treats an end in the future as now, so a sweep asked to run until next year has
    /// swept only up to now: the notifications sent after it are for the next sweep.
    @Test func anUntilInTheFutureCountsAsSweptOnlyWhatWasSentByNow() async throws {
        try await APIScenario.with { scenario in
            let tip = try scenario.tip("4200000000000001", hoursAgo: 3)
            scenario.store.add([
                .init(
                    signedPayload: try scenario.notification("ONE_TIME_CHARGE", number: 1, hoursAgo: 3, about: tip),
                    sentAt: scenario.time(hoursAgo: 3))
            ])
            let future = try await scenario.run(["sync", "--until", "2099-01-01"])
            #expect(future.exited(0), "\(future.summary)")
            let sweptUntil = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT swept_until_ms FROM sync_cursors", in: scenario.directory.path)
            #expect(
                (Int64(sweptUntil) ?? .max) <= LiveTestChain.now,
                "nothing sent after now was swept: swept until \(sweptUntil)")

            let next = try await scenario.run(["sync"])
            #expect(next.exited(0), "the next sweep runs from where that one ended: \(next.summary)")
            let request = try #require(scenario.requests(.getNotificationHistory).last)
            guard case .integer(let start)? = request.body?["startDate"] else {
                Issue.record("no startDate in \(String(describing: request.body))")
                return
            }
            #expect(start < LiveTestChain.now)
        }
    }

    /// A page token Apple refuses restarts the window once; refused again on the restarted
    /// walk, the sweep stops (and the next run resumes) instead of restarting for ever.
    @Test func aPageTokenRefusedAgainAfterTheRestartStopsTheSweep() async throws {
        try await APIScenario.with { scenario in
            let tip = try scenario.tip("4300000000000001", hoursAgo: 3)
            let signed = try scenario.notification("ONE_TIME_CHARGE", number: 1, hoursAgo: 3, about: tip)
            let page =
                #"{"paginationToken":"next","hasMore":true,"#
                + #""notificationHistory":[{"signedPayload":"\#(signed)"}]}"#
            let refusals = Atomic(0)
            // Every token is refused, up to a bound past which the walk is let end, so that a
            // sweep restarting without end still finishes here.
            scenario.fake.respond { request in
                guard request.query["paginationToken"] != nil else { return .json(page) }
                guard refusals.add(1, ordering: .relaxed).newValue <= 10 else {
                    return .json(#"{"hasMore":false,"notificationHistory":[]}"#)
                }
                return .appleError(status: 400, code: 4_000_014, message: "Invalid pagination token.")
            }
            let result = try await scenario.run(["sync"])
            #expect(result.exited(1), "Apple refused the request: \(result.summary)")
            #expect(result.err.contains("InvalidPaginationTokenError (4000014)"), "\(result.err)")
            #expect(refusals.load(ordering: .relaxed) == 2, "one restart, then the sweep stops")
            #expect(scenario.requests(.getNotificationHistory).count == 4)
        }
    }

    /// With strict online checks and no answer from the OCSP responder, a notification is
    /// rejected only for now (its certificates may be good): the sweep stops before that page
    /// counts as swept, and a later sweep, the responder answering or the checks off, records it.
    @Test func aPayloadWhoseRevocationStatusIsUnknownIsSweptAgainNextTime() async throws {
        try await APIScenario.with { scenario in
            let refusing = try RefusingPort()
            // Its root replaces the scenario's in the folder `--keys` names.
            let chain = try LiveTestChain(
                directory: scenario.directory.path, ocspURL: "http://127.0.0.1:\(refusing.port)/")
            let tip = try chain.transaction(id: "4400000000000001", purchaseDate: scenario.time(hoursAgo: 3))
            let signed = try chain.notification(
                "ONE_TIME_CHARGE", uuid: TestChains.uuid(1), signedDate: scenario.time(hoursAgo: 3), about: tip)
            scenario.store.add([.init(signedPayload: signed, sentAt: scenario.time(hoursAgo: 3))])

            let unanswered = try await scenario.run(["sync", "--online-checks"])
            #expect(unanswered.exited(69), "\(unanswered.summary)")
            #expect(unanswered.err.contains("revocation"), "\(unanswered.err)")
            let swept = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT count(*) FROM sync_cursors WHERE swept_until_ms IS NOT NULL",
                in: scenario.directory.path)
            #expect(swept == "0", "nothing counts as swept")

            let later = try await scenario.run(["sync"])
            #expect(later.exited(0), "\(later.summary)")
            let recorded = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT count(*) FROM notifications", in: scenario.directory.path)
            #expect(recorded == "1", "the notification is recorded by the next sweep")
        }
    }

    @Test func aRateLimitWithinAMinuteIsWaitedOutAndTheSweepCompletes() async throws {
        try await APIScenario.with { scenario in
            try Self.fillHistory(scenario)
            let retryAt = LiveTestChain.now + 300
            scenario.fake.reply(.rateLimited(retryAfter: String(retryAt)))
            let result = try await scenario.run(["sync"])
            #expect(result.exited(1), "only the forged payloads are rejected: \(result.summary)")
            #expect(
                result.err.contains(
                    "note: Get Notification History: Apple answered 429 (its rate limit); it takes the next request at"),
                "\(result.err)")
            let requests = scenario.requests(.getNotificationHistory)
            let second = try #require(requests.dropFirst().first?.arrivedAt)
            #expect(second.wholeMilliseconds >= retryAt, "the next request waits for Apple's Retry-After")
            #expect(requests.count == (Self.genuineCount + Self.forgedCount + 19) / 20 + 1)
        }
    }

    @Test func aRateLimitBeyondAMinuteStopsTheSweepAndTheNextOneResumes() async throws {
        try await APIScenario.with { scenario in
            try Self.fillHistory(scenario)
            let later = String(LiveTestChain.now + 3_600_000)
            // The first request for the third page is refused until an hour from now; the next is answered.
            let refused = Atomic(false)
            let store = scenario.store
            scenario.fake.respond { request in
                if request.endpoint == .getNotificationHistory,
                    request.query["paginationToken"]?.hasSuffix("_40") == true,
                    !refused.exchange(true, ordering: .relaxed)
                {
                    return .rateLimited(retryAfter: later)
                }
                return store.respond(request)
            }
            let stopped = try await scenario.run(["sync"])
            #expect(stopped.exited(69), "\(stopped.summary)")
            #expect(stopped.err.contains("RateLimitExceededError (4290000)"), "\(stopped.err)")
            #expect(stopped.err.contains("hint: Apple allows the next request at"), "\(stopped.err)")
            #expect(stopped.outLines.filter { $0.hasPrefix("Production page") }.count == 2)

            let resumed = try await scenario.run(["sync"])
            #expect(resumed.exited(1), "\(resumed.summary)")
            #expect(resumed.err.contains("resuming the sweep of notifications sent from"), "\(resumed.err)")
            #expect(resumed.err.contains("after page 2"), "\(resumed.err)")
            let notifications = try await SQLiteShell.value(
                "ledger.sqlite", "SELECT count(*) FROM notifications", in: scenario.directory.path)
            #expect(notifications == String(Self.genuineCount))
        }
    }
}
