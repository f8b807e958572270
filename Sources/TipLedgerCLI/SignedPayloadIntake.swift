// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerStore

/// The one way signed payloads that come from the App Store Server API reach the ledger, by the
/// path `verify` takes: each token checked by the verifier `verify` builds from the same
/// options, then the verified ones recorded by the ledger's writer as `verify`'s batches are
/// (`Ledger.record(_:finish:saving:)`), so they are idempotent (a notification by its UUID, a
/// token by its digest) and order-safe (a transaction's state is that of its newest
/// `signedDate`).
///
/// A page's records and the cursor after it (`SyncCursor`) commit together. Without a ledger
/// (a dry run), payloads are verified and nothing is recorded.
struct SignedPayloadIntake: Sendable {
    let verifier: Verifier
    /// Where payloads are recorded; nil for a dry run.
    let ledger: Ledger?

    /// Verifies each of `tokens` as `kind` and records those verified, with `cursor` saved in the
    /// same transaction (even when no token verified). One outcome per token, in order.
    ///
    /// New transactions are recorded finished when `finish` is true (the app delivered them);
    /// otherwise pending, as one that only Apple told of.
    ///
    /// A token rejected only for now (strict online checks without a responder's answer) must
    /// not be walked past: the verified tokens of its page are recorded, the cursor is not, and
    /// the walk stops, so that the next one asks for the page again.
    ///
    /// - Throws: a store error when the ledger could not record the page; then nothing of it,
    ///   nor the cursor, was written. With a cursor, `unavailable` when a token's rejection may
    ///   pass later; the cursor was not saved.
    func take(_ tokens: [String], as kind: PayloadKind, finish: Bool, saving cursor: SyncCursor?) throws
        -> [PayloadOutcome]
    {
        var outcomes: [PayloadOutcome] = tokens.map { token in
            do throws(VerificationError) {
                return .verified(try verifier.verifyPayload(token, as: kind), recording: nil)
            } catch {
                return .rejected(error)
            }
        }
        guard let ledger else { return outcomes }
        let verified = outcomes.indices.compactMap { index -> (Int, VerifiedPayload)? in
            guard case .verified(let payload, _) = outcomes[index] else { return nil }
            return (index, payload)
        }
        let passing = cursor == nil ? nil : Self.passingRejection(outcomes)
        let results = try ledger.record(verified.map(\.1), finish: finish, saving: passing == nil ? cursor : nil)
        if let passing {
            throw CLIError(
                .unavailable,
                "\(passing); the walk stops before this page counts as done (its other payloads are recorded)",
                hint: "run it again once the OCSP responder answers: it asks for this page again")
        }
        for ((index, payload), result) in zip(verified, results) {
            switch result {
            case .success(let recorded): outcomes[index] = .verified(payload, recording: recorded)
            case .failure(let rejection): outcomes[index] = .rejected(rejection)
            }
        }
        return outcomes
    }

    /// The first rejection among `outcomes` that the same token may pass later, or nil.
    private static func passingRejection(_ outcomes: [PayloadOutcome]) -> VerificationError? {
        for case .rejected(let error) in outcomes where error.code.isRetryable { return error }
        return nil
    }
}
