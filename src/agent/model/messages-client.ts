import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";

/**
 * Anthropic's client with the Messages API alone: the SDK's default export
 * also brings models, files, skills, organizations, user profiles and the
 * whole beta namespace, which patchwright never calls. Loading and making
 * those cost the Action's first request a good part of the SDK's load (see
 * loadAnthropicSdk); this one shares the SDK's transport, headers, errors
 * and streaming, which live in the base client and the messages resource.
 * Its error classes are the SDK's own (BaseAnthropic.APIError...).
 */
export default class AnthropicMessages extends BaseAnthropic {
  messages: Messages = new Messages(this);
}
