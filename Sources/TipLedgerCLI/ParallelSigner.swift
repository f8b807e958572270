// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import FoundationEssentials
internal import TipLedgerCore

/// Signs many payloads on all cores, keeping their order.
enum ParallelSigner {
    static func sign(_ payloads: [[UInt8]], with signer: JWSSigner) throws -> [String] {
        let slots = ResultSlots<Result<String, any Error>>(count: payloads.count)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, payloads.count))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var index = worker
            while index < payloads.count {
                slots.set(index, Result { try signer.sign(payload: payloads[index]) })
                index += workers
            }
        }
        return try slots.values.map { try $0.get() }
    }
}
