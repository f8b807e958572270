// SPDX-License-Identifier: GPL-3.0-or-later

/// Slots written by several threads, each to its own index, then read by one once all of them
/// are done: the results of work spread over the cores, kept in order.
final class ResultSlots<Value>: @unchecked Sendable {
    /// Allocated once and never moved. (An array's `withUnsafeMutableBufferPointer` is a
    /// mutating access of the whole array: when two workers overlapped, one could find the
    /// buffer shared, copy it and store the copy over the other's results.)
    private let storage: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    /// Safe without a lock: each index is written by exactly one worker, and values are read
    /// only after every worker finished.
    func set(_ index: Int, _ value: Value) {
        storage[index] = value
    }

    func value(_ index: Int) -> Value { storage[index]! }

    var values: [Value] { storage.map { $0! } }
}
