// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Synchronization
import Testing
import TipLedgerCore
import TipLedgerTestSupport

@testable import TipLedgerHTTP

/// The write routes verify on threads of their own, below the workers' priority, so a read is
/// never queued behind a signature check.
@Suite struct VerificationThreadsTests {
    /// Occupies `threads`' only thread until the returned semaphore is signalled.
    func occupy(_ threads: VerificationThreads) throws -> DispatchSemaphore {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        try #require(
            threads.submit {
                started.signal()
                release.wait()
            })
        started.wait()
        return release
    }

    @Test func jobsRunOnThreadsOfTheirOwnAtAHigherNiceness() {
        let threads = VerificationThreads(threads: 2, limit: 8)
        let ran = Mutex<[(thread: pid_t, niceness: Int32)]>([])
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            #expect(
                threads.submit {
                    ran.withLock {
                        $0.append((VerificationThreads.currentThreadID(), VerificationThreads.currentNiceness()))
                    }
                    done.signal()
                })
        }
        for _ in 0..<4 { done.wait() }
        let caller = (thread: VerificationThreads.currentThreadID(), niceness: VerificationThreads.currentNiceness())
        let seen = ran.withLock { $0 }
        #expect(seen.count == 4)
        #expect(seen.allSatisfy { $0.thread != caller.thread })
        #expect(seen.allSatisfy { $0.niceness == min(19, caller.niceness + VerificationThreads.niceness) })
    }

    @Test func pastTheLimitAJobIsRefusedAndEveryQueuedOneStillRuns() throws {
        let threads = VerificationThreads(threads: 1, limit: 2)
        let release = try occupy(threads)
        let finished = Atomic(0)
        let done = DispatchSemaphore(value: 0)
        // The one thread is busy: two more wait, the third is refused.
        let queued = (0..<3).map { _ in
            threads.submit {
                finished.add(1, ordering: .relaxed)
                done.signal()
            }
        }
        #expect(queued == [true, true, false])
        release.signal()
        for _ in 0..<2 { done.wait() }
        #expect(finished.load(ordering: .relaxed) == 2)
    }

    @Test func withNoThreadsAJobRunsOnTheCaller() {
        let threads = VerificationThreads(threads: 0, limit: 1)
        let ran = Mutex<pid_t?>(nil)
        #expect(threads.submit { ran.withLock { $0 = VerificationThreads.currentThreadID() } })
        #expect(ran.withLock { $0 } == VerificationThreads.currentThreadID())
    }

    /// Once the pool is gone, its threads end (a test process makes hundreds of services).
    @Test func theThreadsEndOnceThePoolIsGone() throws {
        var threads: VerificationThreads? = VerificationThreads(threads: 1, limit: 1)
        let thread = Mutex<pid_t?>(nil)
        let done = DispatchSemaphore(value: 0)
        try #require(
            threads?.submit {
                thread.withLock { $0 = VerificationThreads.currentThreadID() }
                done.signal()
            } == true)
        done.wait()
        let id = try #require(thread.withLock { $0 })
        let task = "/proc/self/task/\(id)"
        #expect(FileManager.default.fileExists(atPath: task))
        threads = nil
        // The thread wakes, finds the queue closed and returns; the kernel then drops its entry.
        var waited = 0
        while FileManager.default.fileExists(atPath: task) && waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(!FileManager.default.fileExists(atPath: task))
    }

    func post(_ harness: ServiceHarness, _ id: String) throws -> HTTPAnswer {
        harness.service.answer(
            HTTPRequest(
                method: "POST", path: "/v1/transactions", body: Array(try TestChains.transaction(id: id).utf8),
                remoteAddress: "127.0.0.1"))
    }

    /// While every verification thread is busy, a posted transaction waits without holding the
    /// caller, and a read is answered at once; the post is answered once a thread is free.
    @Test func aReadIsAnsweredWhileEveryVerificationThreadIsBusy() throws {
        let harness = try ServiceHarness(verificationThreads: 1)
        let release = try occupy(harness.service.verification)
        defer { release.signal() }

        guard case .later(let deferred) = try post(harness, "2000000000000931") else {
            Issue.record("a post was answered before it was verified")
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
        #expect(deferred.wait().status == 200)
        #expect(try harness.ledger.texts("SELECT transaction_id FROM transactions") == ["2000000000000931"])
    }

    /// Past `writeQueueLimit` posts waiting for a verification thread, a post is answered 503
    /// with `Retry-After` at once and counted apart from the writer's refusals.
    @Test func pastTheLimitOfPostsWaitingToBeVerifiedAPostIsAnswered503() throws {
        let harness = try ServiceHarness(writeQueueLimit: 1, verificationThreads: 1)
        let release = try occupy(harness.service.verification)
        let waiting = try post(harness, "2000000000000941")
        let refused = try post(harness, "2000000000000942")
        release.signal()

        guard case .now(let response) = refused, case .later(let deferred) = waiting else {
            Issue.record("the first post should wait and the second be refused")
            return
        }
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "1")
        #expect(try jsonObject(response)["message"] as? String == "too many writes wait to be verified; retry later")
        #expect(deferred.wait().status == 200)
        let metrics = harness.request("GET", "/metrics").bodyText
        #expect(metrics.contains("tipledger_verification_queue_refusals_total 1\n"))
        #expect(metrics.contains("tipledger_write_queue_refusals_total 0\n"))
        #expect(try harness.ledger.texts("SELECT transaction_id FROM transactions") == ["2000000000000941"])
    }

    /// A post the server gave up on while it waited for a thread (it stopped, and answered 503)
    /// is not recorded: its retry is then new, not a duplicate.
    @Test func aPostGivenUpOnBeforeItsTurnIsNotRecorded() throws {
        let harness = try ServiceHarness(verificationThreads: 1)
        let release = try occupy(harness.service.verification)
        guard case .later(let deferred) = try post(harness, "2000000000000951") else {
            release.signal()
            Issue.record("a post was answered before it was verified")
            return
        }
        #expect(deferred.abandon())
        release.signal()
        // A job queued after the abandoned one runs after it: once it ran, so did the other.
        let after = DispatchSemaphore(value: 0)
        try #require(harness.service.verification.submit { after.signal() })
        after.wait()
        #expect(deferred.wait().status == 503)
        #expect(try harness.ledger.texts("SELECT transaction_id FROM transactions").isEmpty)
    }
}
