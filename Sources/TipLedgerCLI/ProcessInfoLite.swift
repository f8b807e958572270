// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials

/// Facts about the running process.
enum ProcessInfoLite {
    /// Cores available to this process.
    static var activeProcessorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
