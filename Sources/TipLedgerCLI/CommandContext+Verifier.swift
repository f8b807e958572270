// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerRevocation

extension CommandContext {
    /// The verifier the global options describe (trusted roots, bundle ids, environments, app
    /// Apple id, online checks), on this context's clock: the one `verify` builds, for the
    /// commands that check what Apple's server sends.
    func verifier(for command: String) throws -> Verifier {
        Verifier(
            trustStore: try globals.trustStore(), policy: try globals.verificationPolicy(command: command),
            clock: clock,
            onlineChecks: globals.onlineChecks.map {
                OnlineChecks(mode: $0, checker: OCSPChecker(version: CLI.version))
            })
    }
}
