// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// What every JSON output says of a refused payload (docs/cli.md): `ok` false, the rejection's
/// code, Apple's status for it and the message, written by one function so that `verify`,
/// `lookup` and `sync` answer alike.
public enum RejectionJSON {
    public static func write(_ error: VerificationError, to object: inout JSONWriter.ObjectWriter) {
        object.field("ok", false)
        object.field("error", error.code.rawValue)
        object.field("appleStatus", error.appleStatus)
        object.field("message", error.message)
    }
}
