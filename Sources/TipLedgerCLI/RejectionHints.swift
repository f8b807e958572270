// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// What to say, once per run, about rejections that usually mean a missing setting rather than
/// a bad token. `verify` and `reverify` print these on standard error after their results.
struct RejectionHints {
    private var untrustedChain = false
    private var environmentNotAccepted = false
    private var revocationUnavailable = false

    mutating func note(_ error: VerificationError) {
        if error.isEnvironmentNotAccepted {
            environmentNotAccepted = true
        } else if error.code == .untrustedChain {
            untrustedChain = true
        } else if error.code == .revocationUnavailable {
            revocationUnavailable = true
        }
    }

    /// The hints for the rejections noted, under these settings.
    func lines(globals: GlobalOptions) -> [String] {
        var hints: [String] = []
        if untrustedChain && globals.rootFiles.isEmpty && globals.keysDirectory == nil {
            hints.append(
                "only Apple's root is trusted; for tokens signed by testkit or Xcode, pass --keys DIR or --root FILE")
        }
        if environmentNotAccepted {
            let accepted = globals.environments.sorted().map(\.rawValue).joined(separator: ",")
            hints.append("the accepted environments are \(accepted); list others with --environment")
        }
        if revocationUnavailable {
            hints.append(
                "no OCSP responder gave a trustworthy answer; --online-checks=best-effort verifies such tokens offline")
        }
        return hints
    }
}
