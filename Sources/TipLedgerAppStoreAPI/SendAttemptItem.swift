// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// One attempt Apple made to deliver a notification to the server's URL.
///
/// See <https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem>.
public struct SendAttemptItem: Sendable, Equatable {
    /// When Apple tried.
    public let attemptDate: AppleDate?
    /// Raw `sendAttemptResult`: `SUCCESS`, `TIMED_OUT`, `TLS_ISSUE`, `CIRCULAR_REDIRECT`,
    /// `NO_RESPONSE`, `SOCKET_ISSUE`, `UNSUPPORTED_CHARSET`, `INVALID_RESPONSE`,
    /// `PREMATURE_CLOSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE` or `OTHER`; kept as sent.
    public let rawSendAttemptResult: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        attemptDate = try reader.date("attemptDate")
        rawSendAttemptResult = try reader.string("sendAttemptResult")
    }

    /// The attempts in `key` of `reader`, none when absent.
    static func list(_ key: StaticString, of reader: PayloadReader) throws(PayloadError) -> [SendAttemptItem] {
        var items: [SendAttemptItem] = []
        for item in try reader.objects(key) ?? [] { items.append(try SendAttemptItem(item)) }
        return items
    }
}
