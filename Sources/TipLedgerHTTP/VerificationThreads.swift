// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD
internal import Dispatch
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Threads of their own for the write routes' signature checks, apart from the server's
/// workers and at a lower scheduling priority.
///
/// libmicrohttpd gives each connection to one worker for good, and a worker takes its
/// connections' requests in turn: a worker that verified in its own turn held a restore, a
/// health check or a scrape of `/metrics` behind every signature ahead of it. Here a worker
/// only reads a posted body, hands it over and parks the connection (`DeferredResponse`), so it
/// answers reads at once; and as these threads run at a higher niceness, the kernel lets a
/// worker that wakes with a read to answer run before them, while they keep the cores busy the
/// rest of the time.
final class VerificationThreads: Sendable {
    typealias Job = @Sendable () -> Void

    /// The niceness the threads add to the process's: a waking worker is then picked before them, and gets
    /// three quarters of a core against one of them (the kernel's weights for 0 and 5), while
    /// other programs' load still leaves them a fair share.
    static let niceness: Int32 = 5

    /// What the threads share; it outlives the owner until every thread has seen it closed.
    private final class Queue: Sendable {
        let jobs = Mutex((waiting: [Job](), taken: 0, closed: false))
        let ready = DispatchSemaphore(value: 0)

        /// The next job, waiting for one; nil once closed and empty.
        func next() -> Job? {
            while true {
                ready.wait()
                let job: Job?? = jobs.withLock { jobs in
                    guard jobs.taken < jobs.waiting.count else { return jobs.closed ? .some(nil) : .none }
                    let job = jobs.waiting[jobs.taken]
                    jobs.taken += 1
                    // Drops what was taken once it is half the storage, so the queue stays as
                    // long as what waits.
                    if jobs.taken * 2 >= jobs.waiting.count {
                        jobs.waiting.removeFirst(jobs.taken)
                        jobs.taken = 0
                    }
                    return .some(job)
                }
                if case .some(let job) = job { return job }
            }
        }
    }

    private let queue = Queue()
    /// The threads that started; with none (none asked for, or the process is out of threads),
    /// jobs run on the caller.
    private let threads: Int
    /// The most jobs that may wait for a thread.
    let limit: Int

    /// Starts `threads` threads (0: jobs run on the caller); `limit` jobs at most wait for them.
    init(threads: Int, limit: Int) {
        precondition(threads >= 0 && limit >= 1, "fewer than no threads, or a queue that holds nothing")
        self.limit = limit
        let queue = self.queue
        self.threads = (0..<threads).filter { _ in Self.start(queue) }.count
    }

    deinit {
        queue.jobs.withLock { $0.closed = true }
        for _ in 0..<threads { queue.ready.signal() }
    }

    /// Queues `job` for the next free thread; false, without queueing it, when `limit` jobs
    /// wait already.
    func submit(_ job: @escaping Job) -> Bool {
        guard threads > 0 else {
            job()
            return true
        }
        let queued = queue.jobs.withLock { jobs in
            guard jobs.waiting.count - jobs.taken < limit else { return false }
            jobs.waiting.append(job)
            return true
        }
        if queued { queue.ready.signal() }
        return queued
    }

    /// Starts a thread taking jobs from `queue`; false when none could be made.
    private static func start(_ queue: Queue) -> Bool {
        let retained = Unmanaged.passRetained(queue)
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { argument in
                // Takes back the +1 `start` gave the thread.
                guard let argument else { return nil }
                let queue = Unmanaged<Queue>.fromOpaque(argument).takeRetainedValue()
                // Per thread on Linux: the niceness of this thread alone, over the one it was
                // started with. Raising it needs no privilege; failing to changes only who runs
                // first.
                let thread = id_t(tl_thread_id())
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                _ = setpriority(which, thread, min(19, getpriority(which, thread) + VerificationThreads.niceness))
                while let job = queue.next() { job() }
                return nil
            }, retained.toOpaque())
        guard created == 0 else {
            retained.release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
