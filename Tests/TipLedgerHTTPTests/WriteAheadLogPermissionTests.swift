// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerTestSupport

/// The `-wal` and `-shm` files beside a ledger hold recent writes (account ids, signed
/// purchases) as the ledger does: whatever the umask `serve` is started with, they are readable
/// by their owner alone while it runs.
@Suite struct WriteAheadLogPermissionTests {
    @Test func theLogFilesOfAServedLedgerAreTheOwnersAlone() throws {
        let service = try LiveService { command in ["/bin/sh", "-c", #"umask 000 && exec "$@""#, "sh"] + command }
        // A write, so the log holds something and both files surely exist.
        let posted = try service.connect().exchange(
            "POST", "/v1/transactions", body: Array(try TestChains.transaction(id: "2000000000000701").utf8))
        #expect(posted.status == 200, "\(posted.bodyText)")

        var modes: [String: Int] = [:]
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: service.databasePath + suffix)
            modes[suffix] = (attributes[.posixPermissions] as? NSNumber)?.intValue
        }
        let stopped = service.stop()

        #expect(stopped == 0, "\(service.diagnostics)")
        #expect(modes == ["": 0o600, "-wal": 0o600, "-shm": 0o600])
    }
}
