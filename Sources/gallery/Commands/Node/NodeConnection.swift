import Foundation
import GalleryControl
import GalleryIO
import GalleryWire

/// The node serving a directory, as a command line sees it: commands sent over its control socket,
/// failures mapped to exit codes and one-line messages safe for a terminal.
struct NodeConnection {
    /// The directory the node serves.
    let directory: URL

    /// Sends `command` and returns the reply; a refusal exits 1 with the node's reason.
    func send(_ command: ControlCommand) throws(CommandFailure) -> ControlReply {
        let response: ControlResponse
        do {
            response = try ControlClient.send(ControlRequest(id: 1, command: command), to: directory)
        } catch {
            throw Self.failure(error)
        }
        switch response.result {
        case .success(let reply): return reply
        case .failure(let refusal): throw .failed(TerminalText.escaped(refusal.reason))
        }
    }

    /// Sends `command` and passes every answer to `handler` until it returns false or the node
    /// closes the connection.
    func stream(_ command: ControlCommand, _ handler: (ControlResponse) -> Bool) throws(CommandFailure) {
        do {
            try ControlClient.stream(ControlRequest(id: 1, command: command), to: directory, timeout: nil, handler)
        } catch {
            throw Self.failure(error)
        }
    }

    /// The exit code and message of a node that could not be asked.
    private static func failure(_ error: ControlClient.Failure) -> CommandFailure {
        switch error {
        case .notRunning(let reason): CommandFailure(code: .unavailable, message: TerminalText.escaped(reason), usage: nil)
        case .authRefused(let reason), .foreignOwner(let reason): CommandFailure(code: .authRefused, message: TerminalText.escaped(reason), usage: nil)
        case .failed(let reason): .failed(TerminalText.escaped(reason))
        }
    }
}
