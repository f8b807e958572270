// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension Verifier {
    /// The code `token` is rejected with, or nil when it verifies (as `kind`, or as the kind its
    /// payload shows).
    public func rejection(of token: String, as kind: PayloadKind? = nil) -> VerificationError.Code? {
        do {
            _ = try verifyPayload(token, as: kind)
            return nil
        } catch {
            return error.code
        }
    }

    /// The code an input line (a JWS or a webhook body) is rejected with by `verify(_:)`, or nil.
    public func lineRejection(_ line: String) -> VerificationError.Code? {
        switch verify(line) {
        case .success: nil
        case .failure(let error): error.code
        }
    }
}
