// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import TipLedgerCLI

#if canImport(Glibc)
    import Glibc
#endif

// Files this process creates (the ledger with its -wal and -shm files, backups) hold account
// ids and signed purchases: readable by their owner alone, whatever the caller's umask.
umask(0o077)
// A reader that went away (`tipledger report | head -1`) makes a write fail with EPIPE, which
// the CLI reports and exits 74 on, rather than killing the process without a word.
signal(SIGPIPE, SIG_IGN)
// Before anything uses libcrypto: no cleanup at exit, which worker threads still verifying
// when the process exits would otherwise find half done.
CLI.prepareLibraries()
exit(CLI.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
