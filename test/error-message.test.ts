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
    });
    expect(errorMessage(error)).toBe(
      "GitHub answered 404 to GET /repos/octo-org/demo/pulls/13?per_page=1: Not Found - https://docs.github.com/rest",
    );
  });

  it("is the message of any other error, and the text of anything else thrown", () => {
    expect(errorMessage(new Error("disk full"))).toBe("disk full");
    expect(errorMessage("plain")).toBe("plain");
  });
});
