import CMicroHTTPD
// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The write routes verify on threads of their own, below the workers' priority, so a read is
/// never queued behind a signature check.
@Suite struct VerificationThreadsTests {
    /// The niceness of the calling thread.
    static func niceness() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tl_thread_id()))
    }

    @Test func jobsRunOnThreadsOfTheirOwnAtAHigherNiceness() {
        let threads = VerificationThreads(threads: 2, limit: 8)
        let ran = Mutex<[(thread: pid_t, niceness: Int32)]>([])
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            #expect(
                threads.submit {
                    ran.withLock { $0.append((tl_thread_id(), Self.niceness())) }
                    done.signal()
                })
        }
        for _ in 0..<4 { done.wait() }
        let caller = (thread: tl_thread_id(), niceness: Self.niceness())
        let seen = ran.withLock { $0 }
        #expect(seen.count == 4)
        #expect(seen.allSatisfy { $0.thread != caller.thread })
        #expect(Set(seen.map(\.thread)).count <= 2)
        #expect(seen.allSatisfy { $0.niceness == min(19, caller.niceness + VerificationThreads.niceness) })
    }

    @Test func pastTheLimitAJobIsRefusedAndEveryQueuedOneStillRuns() {
        let threads = VerificationThreads(threads: 1, limit: 2)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = Atomic(0)
        let done = DispatchSemaphore(value: 0)
        #expect(
            threads.submit {
                started.signal()
                release.wait()
                finished.add(1, ordering: .relaxed)
                done.signal()
            })
        // The one thread is busy: two more wait, the fourth is refused.
        started.wait()
        let queued = (0..<3).map { _ in
            threads.submit {
                finished.add(1, ordering: .relaxed)
                done.signal()
            }
        }
        #expect(queued == [true, true, false])
        release.signal()
        for _ in 0..<3 { done.wait() }
        #expect(finished.load(ordering: .relaxed) == 3)
    }

    @Test func withNoThreadsAJobRunsOnTheCaller() {
        let threads = VerificationThreads(threads: 0, limit: 1)
        let caller = tl_thread_id()
        let ran = Mutex<pid_t?>(nil)
        #expect(threads.submit { ran.withLock { $0 = tl_thread_id() } })
        #expect(ran.withLock { $0 } == caller)
    }

    /// While every verification thread is busy, a posted transaction waits without holding the
    /// caller, and a read is answered at once; the post is answered once a thread is free.
    @Test func aReadIsAnsweredWhileEveryVerificationThreadIsBusy() throws {
        let harness = try ServiceHarness(verificationThreads: 1)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        #expect(
            harness.service.verification.submit {
                started.signal()
                release.wait()
            })
        started.wait()

        let post = harness.service.answer(
            HTTPRequest(
                method: "POST", path: "/v1/transactions",
                body: Array(try TestChains.transaction(id: "2000000000000931").utf8), remoteAddress: "127.0.0.1"))
        guard case .later(let deferred) = post else {
            Issue.record("a post was answered before it was verified")
            release.signal()
            return
        }
        #expect(deferred.response == nil)
        #expect(harness.request("GET", "/healthz").status == 200)
        #expect(
            harness.request(
                "GET", "/v1/accounts/\(ServiceHarness.account)/transactions",
                headers: ["Authorization": "Bearer \(ServiceHarness.token)"]
            ).status == 200)
        #expect(deferred.response == nil)

        release.signal()
        let answered = deferred.wait()
        #expect(answered.status == 200)
        #expect(try harness.ledger.texts("SELECT transaction_id FROM transactions") == ["2000000000000931"])
    }

    /// Past `writeQueueLimit` posts waiting for a verification thread, a post is answered 503
    /// with `Retry-After` at once and counted, as past the writer's queue.
    @Test func pastTheLimitOfPostsWaitingToBeVerifiedAPostIsAnswered503() throws {
        let harness = try ServiceHarness(writeQueueLimit: 1, verificationThreads: 1)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        #expect(
            harness.service.verification.submit {
                started.signal()
                release.wait()
            })
        started.wait()
        func post(_ id: String) throws -> HTTPAnswer {
            harness.service.answer(
                HTTPRequest(
                    method: "POST", path: "/v1/transactions", body: Array(try TestChains.transaction(id: id).utf8),
                    remoteAddress: "127.0.0.1"))
        }
        let waiting = try post("2000000000000941")
        let refused = try post("2000000000000942")
        release.signal()

        guard case .now(let response) = refused, case .later(let deferred) = waiting else {
            Issue.record("the first post should wait and the second be refused")
            return
        }
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "1")
        #expect(deferred.wait().status == 200)
        #expect(harness.request("GET", "/metrics").bodyText.contains("tipledger_write_queue_refusals_total 1\n"))
        #expect(try harness.ledger.texts("SELECT transaction_id FROM transactions") == ["2000000000000941"])
    }
}
