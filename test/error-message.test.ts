import { RequestError } from "@octokit/request-error";
import { describe, expect, it } from "vitest";
import { errorMessage } from "../src/error-message.js";

describe("errorMessage", () => {
  it("names the GitHub call a request error answered: method, path and status", () => {
    const error = new RequestError("Not Found - https://docs.github.com/rest", 404, {
      request: {
        method: "GET",
        url: "https://api.github.com/repos/octo-org/demo/pulls/13?per_page=1",
        headers: {},
      },
      response: {
        status: 404,
        url: "https://api.github.com/repos/octo-org/demo/pulls/13?per_page=1",
        headers: {},
        data: { message: "Not Found" },
      },
    });
    expect(errorMessage(error)).toBe(
      "GitHub answered 404 to GET /repos/octo-org/demo/pulls/13?per_page=1: Not Found - https://docs.github.com/rest",
    );
  });

  it("says GitHub did not answer a request that got no answer (Octokit's status 500 without a response)", () => {
    const error = new RequestError("unable to verify the first certificate", 500, {
      request: { method: "GET", url: "https://api.github.com/repos/o/r", headers: {} },
    });
    expect(errorMessage(error)).toBe(
      "GitHub did not answer GET /repos/o/r: unable to verify the first certificate",
    );
  });

  it("is the message of any other error, and the text of anything else thrown", () => {
    expect(errorMessage(new Error("disk full"))).toBe("disk full");
    expect(errorMessage("plain")).toBe("plain");
  });
});
