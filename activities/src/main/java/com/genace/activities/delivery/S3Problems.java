package com.genace.activities.delivery;

import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** One line an operator can act on, for an S3 failure; never a credential. */
final class S3Problems {

  private static final int MAX = 200;

  private S3Problems() {}

  static String describe(SdkException e, String bucket) {
    if (e instanceof S3Exception s3) {
      String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
      return switch (s3.statusCode()) {
        case 404 -> "bucket " + bucket + " does not exist (HTTP 404" + suffix(code) + ")";
        case 403 ->
            "access denied to bucket "
                + bucket
                + " (HTTP 403"
                + suffix(code)
                + "): check the AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or"
                + " AWS_PROFILE) and their permissions";
        case 301 -> "bucket " + bucket + " is in another region (HTTP 301): set AWS_REGION";
        default -> "HTTP " + s3.statusCode() + suffix(code);
      };
    }
    String message = String.valueOf(e.getMessage());
    if (e instanceof SdkClientException && message.contains("Unable to load credentials")) {
      return "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or"
          + " AWS_PROFILE";
    }
    String line = message.lines().findFirst().orElse(e.getClass().getSimpleName());
    return line.length() <= MAX ? line : line.substring(0, MAX) + "...";
  }

  private static String suffix(String code) {
    return code == null || code.isBlank() ? "" : " " + code;
  }
}
