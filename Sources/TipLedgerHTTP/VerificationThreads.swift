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
/// connections' requests in turn, so a signature check on a worker would hold a restore, a
/// health check or a scrape of `/metrics` of another of its connections behind it. A worker
/// only reads a posted body, hands it over and parks the connection (`DeferredResponse`), and
/// goes on to its other requests; with these threads at a higher niceness, a worker that wakes
/// with a read gets the larger share of a busy core, while they keep the cores busy the rest of
/// the time.
final class VerificationThreads: Sendable {
    typealias Job = @Sendable () -> Void

    /// The niceness the threads add to that of the thread that starts them: against one of
    /// them, a worker gets three quarters of a core (the kernel's weights for 0 and 5), and
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

    private static let which = __priority_which_t(PRIO_PROCESS.rawValue)

    /// The calling thread's id (a thread of Linux's, not a pthread handle).
    static func currentThreadID() -> pid_t { tl_thread_id() }

    /// The calling thread's niceness.
    static func currentNiceness() -> Int32 { getpriority(which, id_t(tl_thread_id())) }

    /// Raises the calling thread's niceness by `niceness`: per thread on Linux, this thread's
    /// alone. Raising it needs no privilege; failing to changes only the shares of the CPU.
    private static func lowerThisThreadsPriority() {
        _ = setpriority(which, id_t(tl_thread_id()), min(19, currentNiceness() + niceness))
    }

    /// Starts a thread taking jobs from `queue`; false when none could be made.
    private static func start(_ queue: Queue) -> Bool {
        DetachedThread.start {
            lowerThisThreadsPriority()
            while let job = queue.next() { job() }
        }
    }
}
