// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCrypto

/// The end of step 6 of docs/verification.md, with online checks only: whether the
/// intermediate, then the leaf, of the validated chain is revoked, asked of the responder each
/// names (at most two requests per token, none for a status kept from before). After the
/// signature, so a forged token costs no request. Runs at the clock's time, as the chain then
/// does (`EffectiveTimeCheck`). Xcode's single certificate names no responder and is not asked
/// about.
struct RevocationCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        guard let online = verifier.onlineChecks, let chain = token.chain else { return }
        let pairs = [("intermediate", chain.intermediate, chain.root), ("leaf", chain.leaf, chain.intermediate)]
        for (name, certificate, issuer) in pairs {
            switch online.checker.status(of: certificate, issuedBy: issuer, in: chain, at: token.effectiveDate) {
            case .good:
                continue
            case .revoked(let detail):
                throw VerificationError(.certificateRevoked, "the \(name) certificate is revoked: \(detail)")
            case .unavailable(let reason):
                guard online.mode == .strict else { continue }
                throw VerificationError(
                    .revocationUnavailable, "the \(name) certificate's revocation status is unknown: \(reason)")
            }
        }
    }
}
