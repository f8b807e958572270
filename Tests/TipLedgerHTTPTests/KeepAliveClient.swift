// SPDX-License-Identifier: GPL-3.0-or-later

/// One thread's client of a live service: a keep-alive connection, opened again after the
/// server closed it (`Connection: close`, or a failed exchange).
final class KeepAliveClient {
    let port: UInt16
    private var connection: LoopbackConnection?

    init(port: UInt16) {
        self.port = port
    }

    /// Sends one request and reads its response; `connectFailed` means nothing accepts any more.
    func exchange(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [])
        throws(LoopbackError) -> LoopbackResponse
    {
        let connection: LoopbackConnection
        if let open = self.connection {
            connection = open
        } else {
            connection = try LoopbackConnection(port: port, receiveTimeout: .seconds(30))
            self.connection = connection
        }
        do {
            let response = try connection.exchange(method, target, headers: headers, body: body)
            if response.headers["Connection"]?.lowercased() == "close" { self.connection = nil }
            return response
        } catch {
            self.connection = nil
            throw error
        }
    }
}
