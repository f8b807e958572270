// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Foundation
import Synchronization
import TipLedgerTestSupport

/// Client threads posting to a live service until told to stop (or `limit` requests each): in
/// turn a new transaction, a TEST notification and a REFUND of the transaction before, each
/// signed as it is sent. Keeps the moment each was acknowledged (answered 200).
final class AcknowledgedStream: Sendable {
    /// One acknowledged request.
    struct Acknowledgement: Sendable {
        let at: ContinuousClock.Instant
        let item: SignedItem
    }

    private let acknowledgements = Mutex<[Acknowledgement]>([])
    /// Requests answered otherwise than with 200 (a failure the test reports).
    private let refusals = Mutex<[String]>([])
    private let stopping = Atomic(false)
    private let answered = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()

    /// Starts `clients` threads posting to 127.0.0.1:`port`; their transaction ids and
    /// notification UUIDs are numbered from `first` up, so streams with different `first`s
    /// (far enough apart) never repeat one another. `acknowledged`, if given, is told the count
    /// of acknowledgements so far on the client's thread as soon as each is kept.
    init(
        port: UInt16, clients: Int, limit: Int, first: Int, acknowledged: (@Sendable (Int) -> Void)? = nil
    ) {
        for client in 0..<clients {
            done.enter()
            Thread { [self] in
                defer { done.leave() }
                let connection = KeepAliveClient(port: port)
                var purchase = ""
                for index in 0..<limit where !stopping.load(ordering: .relaxed) {
                    let number = first + client * limit + index
                    let item: SignedItem
                    do {
                        switch index % 3 {
                        case 0:
                            purchase = try TestChains.transaction(id: String(2_000_000_000_000_000 + number))
                            item = SignedItem(
                                kind: .transaction, key: String(2_000_000_000_000_000 + number),
                                path: "/v1/transactions", body: Array(purchase.utf8))
                        case 1:
                            item = .notification(
                                try TestChains.notification(type: "TEST", uuid: TestChains.uuid(number)),
                                uuid: TestChains.uuid(number))
                        default:
                            item = .notification(
                                try TestChains.notification(
                                    type: "REFUND", uuid: TestChains.uuid(number),
                                    signedDate: TestChains.referenceMilliseconds + 3_600_000, around: purchase),
                                uuid: TestChains.uuid(number))
                        }
                    } catch {
                        refusals.withLock { $0.append("signing failed: \(error)") }
                        return
                    }
                    do throws(LoopbackError) {
                        let response = try connection.exchange("POST", item.path, body: item.body)
                        guard response.status == 200 else {
                            refusals.withLock { $0.append("\(item.key): \(response.status) \(response.bodyText)") }
                            continue
                        }
                        let now = ContinuousClock.now
                        let count = acknowledgements.withLock { list in
                            list.append(Acknowledgement(at: now, item: item))
                            return list.count
                        }
                        acknowledged?(count)
                        answered.signal()
                    } catch {
                        // The service is gone (killed, or stopping): nothing more is acknowledged.
                        return
                    }
                }
            }.start()
        }
    }

    /// The acknowledgements so far, in the order they came.
    var acknowledged: [Acknowledgement] { acknowledgements.withLock { $0 } }

    /// The requests answered otherwise than with 200.
    var refused: [String] { refusals.withLock { $0 } }

    /// Waits at most `timeout`, acknowledgement by acknowledgement, until `condition` holds for
    /// the number so far and the moment of the first; true when it does.
    func wait(upTo timeout: Duration, until condition: (Int, ContinuousClock.Instant?) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        func holds() -> Bool {
            let (count, first) = acknowledgements.withLock { ($0.count, $0.first?.at) }
            return condition(count, first)
        }
        while !holds() {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, answered.wait(timeout: .now() + dispatchInterval(remaining)) == .success else {
                return holds()
            }
        }
        return true
    }

    /// Lets each client finish its request in flight and stop; true once all have, within a
    /// minute.
    @discardableResult
    func stop() -> Bool {
        stopping.store(true, ordering: .relaxed)
        return done.wait(timeout: .now() + 60) == .success
    }

    /// Waits at most `timeout` for the clients to send all `limit` requests; true when they did.
    func finish(upTo timeout: Duration = .seconds(120)) -> Bool {
        done.wait(timeout: .now() + dispatchInterval(timeout)) == .success
    }
}
