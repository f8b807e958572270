// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import TipLedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

exit(CLI.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
