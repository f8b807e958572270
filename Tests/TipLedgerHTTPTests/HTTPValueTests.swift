// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerHTTP

/// The request and response values and the configuration, without sockets.
@Suite struct HTTPValueTests {
    @Test func headerNamesMatchIgnoringASCIICase() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "X-Tip": "1"]
        headers.add("x-tip", "2")

        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers.values(for: "X-TIP") == ["1", "2"])
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Typé"] == nil)

        headers.set("X-TIP", "3")
        #expect(headers.values(for: "x-tip") == ["3"])
        headers.remove("content-type")
        #expect(headers["Content-Type"] == nil)
        #expect(headers.count == 1)
    }

    @Test func queryNamesAreCaseSensitiveAndKeepOrder() {
        let query = HTTPQuery([
            .init(name: "by", value: "day"), .init(name: "By", value: "x"), .init(name: "by", value: "product"),
        ])

        #expect(query["by"] == "day")
        #expect(query["By"] == "x")
        #expect(query.values(for: "by") == ["day", "product"])
        #expect(query["BY"] == nil)
    }

    @Test func errorResponseHasTheServiceShape() {
        let response = HTTPResponse.error(status: 422, code: "bad_signature", message: "the \"signature\" is wrong")

        #expect(response.status == 422)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.bodyText == #"{"error":"bad_signature","message":"the \"signature\" is wrong"}"#)
    }

    @Test func jsonResponseWritesItsBody() {
        let response = HTTPResponse.json(status: 201) { writer in
            writer.object { object in
                object.field("outcome", "recorded")
                object.field("count", 2)
            }
        }

        #expect(response.status == 201)
        #expect(response.bodyText == #"{"outcome":"recorded","count":2}"#)
    }

    @Test(
        arguments: [
            ("127.0.0.1:8080", "127.0.0.1", 8080),
            ("0.0.0.0:0", "0.0.0.0", 0),
            ("localhost:65535", "localhost", 65535),
        ] as [(String, String, Int)])
    func listenAddressParses(text: String, host: String, port: Int) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host, "\(text)")
        #expect(Int(address.port) == port, "\(text)")
        #expect(address.description == text)
    }

    @Test(arguments: [
        "", "8080", ":8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:80a",
        "127.1:8080", "256.0.0.1:8080", "example.com:8080", "[::1]:8080", "127.0.0.1:+80",
    ])
    func listenAddressRejects(text: String) {
        #expect(throws: HTTPServerError.invalidListenAddress(text), "\(text)") {
            _ = try ListenAddress(parsing: text)
        }
    }

    @Test func configurationOutOfRangeIsRefusedAtStart() throws {
        var configuration = HTTPServerConfiguration(listenAddress: try ListenAddress(parsing: "127.0.0.1:0"))
        configuration.workerThreads = 4
        configuration.connectionLimit = 3

        #expect {
            _ = try HTTPServer(configuration: configuration) { _ in .text("unreachable") }
        } throws: { error in
            (error as? HTTPServerError)?.code == "invalid_configuration"
        }
    }

    @Test func serverErrorsHaveStableCodesAndReadableDescriptions() {
        let error = HTTPServerError.cannotListen(address: "127.0.0.1:80", errno: 13)
        #expect(error.code == "cannot_listen")
        #expect(error.description == "cannot listen on 127.0.0.1:80: Permission denied")
    }

    @Test func defaultsFitTheService() throws {
        let configuration = HTTPServerConfiguration(listenAddress: try ListenAddress(parsing: "127.0.0.1:8080"))
        // A body holds what a line of `verify` holds: the largest token and 1 KiB around it.
        #expect(configuration.maximumBodyBytes == 65536 + 1024)
        #expect(configuration.workerThreads >= 2)
        #expect(configuration.connectionLimit >= configuration.workerThreads)
    }
}
