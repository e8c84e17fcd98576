"""Regenerate ``tickets.jsonl``, the bundled example: 72 support tickets triaged by 3 candidates.

Run ``.venv/bin/python scripts/make_tickets.py`` to rewrite ``skynet_core/examples/tickets.jsonl``.

The tickets are written by hand; what each candidate "returned" is generated. Every
random choice comes from a ``random.Random`` seeded with the candidate and the ticket
id (string seeds hash the same on every run and platform), so the file is the same
byte for byte each time, and changing one ticket does not reshuffle the others.

The candidates trade accuracy against speed and cost:

- ``fast-small``: about 300 ms and $0.0002 a call; wrong labels on about a quarter of
  the tickets (more on ambiguous ones), sometimes off-taxonomy labels, missing fields
  or invalid JSON.
- ``balanced``: about 900 ms and $0.002; fewer mistakes.
- ``large-careful``: about 2.5 s and $0.012; nearly always right.

About ten tickets have ``expected: null`` (not yet labelled), and a few cases lack a
latency or cost measurement (``null``), as real logs do.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

SEED = "skynet-tickets-v1"
OUT_PATH = Path(__file__).resolve().parents[1] / "skynet_core" / "examples" / "tickets.jsonl"
FIELDS = ["label", "priority", "reply"]
UNLABELLED = 10


@dataclass(frozen=True)
class Ticket:
    """A hand-written ticket. ``gist`` is how a reply refers to it; ``alt`` is the
    label a careless reader could plausibly pick instead (set on ambiguous tickets)."""

    subject: str
    message: str
    label: str
    priority: str
    gist: str
    alt: str | None = None


@dataclass(frozen=True)
class Candidate:
    """How one candidate behaves: error rates and the cost and speed of a call."""

    name: str
    label_error: float
    ambiguous_label_error: float
    off_taxonomy: float
    priority_error: float
    invalid_json: float
    missing_field: float
    invalid_kinds: tuple[str, ...]
    base_ms: float
    ms_per_token: float
    usd_per_input_token: float
    usd_per_output_token: float
    detail: int


TICKETS = [
    # billing
    Ticket(
        "Charged twice for March",
        "Hi, I just checked my bank statement and you took $49.00 twice on March 3rd. I only have one "
        "subscription (Pro, monthly). Can you reverse the duplicate charge please?",
        "billing",
        "high",
        "the duplicate $49.00 charge on March 3rd",
        alt="refund",
    ),
    Ticket(
        "Invoices missing our VAT number",
        "Hello, our accounting department needs the invoices to show our VAT number (DE811234567). The last "
        "three invoices don't have it. Could you reissue them? Thanks, Katrin",
        "billing",
        "medium",
        "the VAT number missing from your invoices",
    ),
    Ticket(
        "How do I update my card?",
        "My card expires at the end of this month. Where do I change the payment method? I can't find it "
        "anywhere in settings.",
        "billing",
        "low",
        "updating your payment card",
        alt="account",
    ),
    Ticket(
        "Why did my bill go up??",
        "Last month I paid 19.99 and this month it's 27.99. Nobody told me about a price change. What is going on?",
        "billing",
        "medium",
        "the higher amount on this month's bill",
    ),
    Ticket(
        "Payment failed but money left my account",
        "The checkout said 'payment failed' so I tried again, and now I see two pending transactions of €84.50 on "
        "my card but no order confirmation. Did it go through or not?",
        "billing",
        "high",
        "the two pending €84.50 transactions",
        alt="shipping",
    ),
    Ticket(
        "Receipts for expense report",
        "Can you send me receipts for all payments since January? My employer reimburses the subscription but "
        "needs a PDF for each month.",
        "billing",
        "low",
        "receipts for your payments since January",
    ),
    Ticket(
        "Switching the team to annual billing",
        "We'd like to move our team (14 seats) from monthly to annual billing to get the discount. Is the "
        "difference for the current month prorated?",
        "billing",
        "low",
        "moving your 14 seats to annual billing",
    ),
    Ticket(
        "Still charged after cancelling",
        "I cancelled my subscription on the 2nd (I have the confirmation email) but I was still charged $12 on "
        "the 5th. Please fix this.",
        "billing",
        "high",
        "the $12 charge after you cancelled",
        alt="refund",
    ),
    Ticket(
        "Sales tax on invoice looks wrong",
        "We're a registered non-profit and sent our tax exemption certificate in February, but you're still "
        "adding 8.25% sales tax to every invoice.",
        "billing",
        "medium",
        "the sales tax on your invoices",
    ),
    Ticket(
        "Card declined - workspace about to be suspended",
        "My card was declined for the renewal and now the dashboard says our workspace will be suspended in 3 "
        "days. I've updated the card, can you retry the payment today? We have a launch on Friday.",
        "billing",
        "high",
        "the declined renewal payment",
        alt="account",
    ),
    Ticket(
        "Coupon code not applied",
        "I used the code SPRING20 at checkout and the page showed 20% off, but my invoice shows the full price "
        "of $240.",
        "billing",
        "medium",
        "the SPRING20 discount missing from your invoice",
    ),
    Ticket(
        "question about adding users",
        "if i add 3 more users in the middle of the billing cycle do i pay the full month for each of them or "
        "only the days left?",
        "billing",
        "low",
        "how seats added mid-cycle are billed",
    ),
    # technical
    Ticket(
        "App crashes on startup",
        "Since this morning's update the Android app closes right after the splash screen. Pixel 7, Android 14. "
        "I reinstalled it twice, same thing.",
        "technical",
        "high",
        "the Android app closing on startup",
    ),
    Ticket(
        "CSV export is broken",
        "When I export the monthly report to CSV all the dates come out as ##### and the amounts end up in one "
        "column. It worked fine last week.",
        "technical",
        "medium",
        "the broken CSV export",
    ),
    Ticket(
        "API returning 500 errors",
        "Our integration has been getting HTTP 500 from /v2/orders since about 14:10 UTC. Roughly 30% of "
        "requests fail and it is blocking our checkout. Example request id: 7f3c-22ab.",
        "technical",
        "high",
        "the 500 errors from /v2/orders",
    ),
    Ticket(
        "Notes not syncing between phone and laptop",
        "Notes I write on my phone don't show up on my laptop anymore. Both apps say 'synced just now'. Both are "
        "on the latest version.",
        "technical",
        "medium",
        "notes not syncing between your devices",
    ),
    Ticket(
        "Webhook signature mismatch after rotating secret",
        "We rotated our webhook secret yesterday and since then every webhook fails signature verification on "
        "our side. Are retries of old deliveries still signed with the old secret?",
        "technical",
        "medium",
        "webhook signatures failing after the secret rotation",
    ),
    Ticket(
        "Dashboard extremely slow",
        "The dashboard takes 20-30 seconds to load for everyone in our office. Other sites are fine. Is "
        "something going on on your side?",
        "technical",
        "medium",
        "the slow dashboard",
    ),
    Ticket(
        "Uploads stop at 99%",
        "Uploads get stuck at 99% for any file over about 10 MB. Smaller files are fine. Tried Chrome and "
        "Firefox on two different laptops.",
        "technical",
        "medium",
        "uploads over 10 MB getting stuck",
    ),
    Ticket(
        "Error E-1043 when printing labels",
        "Every time I click 'Print shipping label' I get error E-1043 and nothing prints. Printer is a Zebra "
        "ZD420 and it worked fine until yesterday. I have 40 parcels to send today.",
        "technical",
        "high",
        "error E-1043 when printing labels",
        alt="shipping",
    ),
    Ticket(
        "Dark mode text hard to read",
        "In dark mode the text on the settings page is dark grey on black and I can barely read it. Minor, but "
        "annoying.",
        "technical",
        "low",
        "the hard-to-read text in dark mode",
    ),
    Ticket(
        "Google Calendar integration stopped working",
        "Events from your app stopped appearing in my Google Calendar around last Tuesday. I tried "
        "disconnecting and reconnecting, no luck.",
        "technical",
        "medium",
        "the Google Calendar integration",
    ),
    Ticket(
        "Notifications arrive hours late",
        "Push notifications for new messages reach my iPhone 2-3 hours after the message was sent. Background "
        "refresh is on and the app is allowed to send notifications.",
        "technical",
        "medium",
        "the late push notifications",
    ),
    Ticket(
        "Entries disappeared after update!!",
        "After updating to version 5.2 the last two weeks of entries are gone from my project. I really need "
        "them back, it's the data for my thesis and the deadline is next week.",
        "technical",
        "high",
        "the entries missing since version 5.2",
    ),
    # account
    Ticket(
        "Password reset email never arrives",
        "I've requested a password reset 4 times and nothing has arrived, not even in spam. My email is "
        "j.moreau@laposte.net. I'm completely locked out.",
        "account",
        "high",
        "the password reset email that never arrived",
    ),
    Ticket(
        "Changing my login email",
        "I'm leaving my job and need to change my login email from my work address to my personal one. How do "
        "I do that without losing my data?",
        "account",
        "medium",
        "changing your login email",
    ),
    Ticket(
        "Lost phone with authenticator app",
        "I lost my phone and the authenticator app was on it. I have backup codes somewhere but can't find "
        "them. How can I get back into my account?",
        "account",
        "high",
        "getting back in without your authenticator app",
    ),
    Ticket(
        "Delete my account",
        "Please delete my account and all my personal data. I don't use the service anymore. José Álvarez",
        "account",
        "medium",
        "deleting your account and personal data",
    ),
    Ticket(
        "Invite button greyed out",
        "How do I invite a colleague as an admin? The invite button is greyed out for me even though I created "
        "the workspace.",
        "account",
        "low",
        "inviting a colleague as an admin",
        alt="technical",
    ),
    Ticket(
        "Someone logged into my account",
        "I got an email about a new login from Lagos, Nigeria. That wasn't me. I've changed my password but I'm "
        "worried. What else should I do?",
        "account",
        "high",
        "the login you don't recognise",
    ),
    Ticket(
        "Merge two accounts",
        "I accidentally created a second account with my Gmail address. Can you merge it into my main one? Both "
        "are on the free plan.",
        "account",
        "low",
        "merging your two accounts",
    ),
    Ticket(
        "Username already taken",
        "I'm trying to sign up but it says my username is taken. I think it's my own old account from 2019 that "
        "I forgot about. Can I get it back?",
        "account",
        "low",
        "recovering your old username",
    ),
    Ticket(
        "Account locked",
        "My account got locked after I mistyped my password a few times. It says to wait 24 hours but I need "
        "to submit my timesheet TODAY.",
        "account",
        "high",
        "your locked account",
    ),
    Ticket(
        "Transfer workspace ownership",
        "Our workspace owner left the company last month. How do we transfer ownership to me? I'm already an admin.",
        "account",
        "medium",
        "transferring the workspace ownership",
    ),
    Ticket(
        "Change last name on profile",
        "I got married and would like to update my last name on my profile and on my certificates. The field is "
        "locked.",
        "account",
        "low",
        "updating the name on your profile",
    ),
    Ticket(
        "SSO login loops forever",
        "Since we turned on SSO with Okta, users get redirected back and forth between Okta and your login page "
        "endlessly. Nobody in the company can log in.",
        "account",
        "high",
        "the SSO redirect loop",
        alt="technical",
    ),
    # shipping
    Ticket(
        "Where is my order?",
        "Order #48213 was supposed to arrive on Monday. The tracking hasn't updated in 5 days, it still says "
        "'label created'.",
        "shipping",
        "medium",
        "order #48213",
    ),
    Ticket(
        "Package says delivered but it isn't here",
        "Tracking says delivered yesterday at 2:14pm but there's nothing at my door or with my neighbours. "
        "Order 51877.",
        "shipping",
        "high",
        "order 51877 marked delivered but not received",
    ),
    Ticket(
        "Wrong address on my order",
        "I just placed order #60102 and realised it's going to my old address. Can you change it to 22 Harbour "
        "Street, Leith, EH6 6LT before it ships?",
        "shipping",
        "high",
        "the address on order #60102",
    ),
    Ticket(
        "Shipping to Canada?",
        "Do you ship to Canada? And if so, will I have to pay customs duties when it arrives?",
        "shipping",
        "low",
        "shipping to Canada",
    ),
    Ticket(
        "Box arrived crushed",
        "My order arrived with the box crushed and one of the two mugs broken. I have photos. What should I do?",
        "shipping",
        "medium",
        "the mug that arrived broken",
        alt="refund",
    ),
    Ticket(
        "Paid for next-day delivery, took 4 days",
        "I paid $18 for next-day delivery and it took 4 days. It was a birthday present and the birthday has "
        "now passed.",
        "shipping",
        "medium",
        "the next-day delivery that took 4 days",
        alt="refund",
    ),
    Ticket(
        "Item missing from order",
        "I ordered 3 items (order 57730) but the box only had 2. The packing slip lists all 3.",
        "shipping",
        "medium",
        "the item missing from order 57730",
    ),
    Ticket(
        "Away during delivery",
        "I'll be away from the 12th to the 19th. Can the courier hold my parcel or deliver it after I'm back?",
        "shipping",
        "low",
        "holding your parcel while you're away",
    ),
    Ticket(
        "Tracking number not found",
        "The tracking number in my confirmation email (1Z999AA10123456784) says 'not found' on the UPS site.",
        "shipping",
        "low",
        "the tracking number that isn't found",
    ),
    Ticket(
        "Parcel stuck in customs",
        "My package has been in customs in Frankfurt for 9 days. Is there any paperwork I need to send?",
        "shipping",
        "medium",
        "your parcel held in customs",
    ),
    Ticket(
        "Only got half my order",
        "I received only part of my order and there's no information about the rest. Is it coming in a "
        "separate package?",
        "shipping",
        "low",
        "the rest of your order",
    ),
    Ticket(
        "Parcel left in the rain",
        "The driver left the parcel on the doorstep in the pouring rain and the book inside is soaked. Very "
        "disappointed.",
        "shipping",
        "medium",
        "the parcel left out in the rain",
        alt="refund",
    ),
    # refund
    Ticket(
        "Refund for returned jacket",
        "I sent back the jacket (order 44120) three weeks ago. Tracking shows you received the return on the "
        "4th, but I still haven't got my money back.",
        "refund",
        "medium",
        "the refund for your returned jacket",
    ),
    Ticket(
        "I want my money back",
        "The product doesn't do what the website said it does. I want a full refund.",
        "refund",
        "medium",
        "your refund request",
    ),
    Ticket(
        "Refund going to a cancelled card",
        "My refund is going to a card I've since cancelled. Can it be sent to my new card, or as store credit?",
        "refund",
        "medium",
        "where your refund is sent",
        alt="billing",
    ),
    Ticket(
        "Cancel order and refund",
        "I ordered the wrong size by mistake 20 minutes ago (order 61234). Please cancel it and refund me.",
        "refund",
        "high",
        "cancelling order 61234",
        alt="shipping",
    ),
    Ticket(
        "Partial refund for chipped plate",
        "One of the plates in the dinner set arrived chipped. I'd like to keep the rest and get a partial "
        "refund for that one.",
        "refund",
        "low",
        "a partial refund for the chipped plate",
        alt="shipping",
    ),
    Ticket(
        "Headphones broke after 35 days",
        "I bought headphones 35 days ago and they stopped charging. Your policy says 30 days for returns. Is "
        "there anything you can do?",
        "refund",
        "medium",
        "the headphones that stopped charging",
        alt="technical",
    ),
    Ticket(
        "Refund amount is wrong",
        "I got a refund of $32.00 but I paid $47.50 including shipping. Why wasn't the full amount refunded?",
        "refund",
        "medium",
        "the difference in your refund",
        alt="billing",
    ),
    Ticket(
        "Signed up for annual by mistake",
        "I signed up for the annual plan last week by accident, I wanted monthly. Can you refund me and switch "
        "me to monthly?",
        "refund",
        "medium",
        "refunding the annual plan",
        alt="billing",
    ),
    Ticket(
        "How long do refunds take?",
        "You told me my refund was processed on Monday. How many days until I see it on my statement?",
        "refund",
        "low",
        "when your refund will arrive",
    ),
    Ticket(
        "Return label for boots",
        "How do I get a return label for the boots? They're too small. Order 58091.",
        "refund",
        "low",
        "a return label for your boots",
        alt="shipping",
    ),
    Ticket(
        "Refund not received after a month",
        "It's been over a month since you confirmed my refund of €129. My bank says nothing has come in. I'm "
        "getting really frustrated and will dispute the charge if this isn't sorted this week.",
        "refund",
        "high",
        "your €129 refund",
    ),
    Ticket(
        "Return a gift without receipt",
        "I received a gift from your store that I don't need. Can I return it for store credit without the receipt?",
        "refund",
        "low",
        "returning a gift without a receipt",
    ),
    # other
    Ticket(
        "Affiliate partnership",
        "Hi, I run a small cycling blog (about 40k readers a month) and would love to discuss an affiliate "
        "partnership. Who should I talk to?",
        "other",
        "low",
        "an affiliate partnership",
    ),
    Ticket(
        "Thank you Priya!",
        "Just wanted to say that Priya in your chat team was fantastic yesterday. She sorted everything out in "
        "5 minutes.",
        "other",
        "low",
        "your kind words about Priya",
    ),
    Ticket(
        "Are you hiring in Lisbon?",
        "Are you hiring customer support staff in Lisbon? I couldn't find a careers page on your website.",
        "other",
        "low",
        "jobs in Lisbon",
    ),
    Ticket(
        "Feature request: keyboard shortcuts",
        "It would be great to have keyboard shortcuts for archiving and tagging. I process hundreds of items a "
        "day and the mouse is slowing me down.",
        "other",
        "low",
        "keyboard shortcuts",
        alt="technical",
    ),
    Ticket(
        "Press enquiry",
        "I'm a journalist at the Zürcher Regionalzeitung writing about local startups. Could someone from your "
        "team answer a few questions by Thursday?",
        "other",
        "medium",
        "your press enquiry",
    ),
    Ticket(
        "Student discount?",
        "I'm a university student. Is there any discount available?",
        "other",
        "low",
        "a student discount",
        alt="billing",
    ),
    Ticket(
        "Do you sell customer data?",
        "Do you sell customer data to third parties? I want to understand this before I sign up.",
        "other",
        "low",
        "how we handle customer data",
        alt="account",
    ),
    Ticket(
        "School raffle donation",
        "Our primary school is holding a raffle next month. Would you consider donating a product or a voucher?",
        "other",
        "low",
        "a donation for your school raffle",
    ),
    Ticket(
        "Sunday opening hours",
        "What time does your Manchester shop open on Sundays?",
        "other",
        "low",
        "Sunday opening hours in Manchester",
    ),
    Ticket(
        "STOP sending me emails",
        "I unsubscribed twice and I still get three marketing emails a week from you. Please stop.",
        "other",
        "medium",
        "the marketing emails",
        alt="account",
    ),
    Ticket(
        "Bulk order for a conference",
        "We'd like to order 150 branded notebooks for a conference in June. Do you offer volume pricing?",
        "other",
        "medium",
        "a bulk order of 150 notebooks",
        alt="billing",
    ),
    Ticket(
        "Is the paint safe for toddlers?",
        "Is the wooden toy set painted with non-toxic paint? My son is 2 and puts everything in his mouth.",
        "other",
        "medium",
        "the paint on the wooden toy set",
    ),
]

LABELS = ("billing", "technical", "account", "shipping", "refund", "other")
PRIORITIES = ("low", "medium", "high")
# Labels a small model invents instead of the six it was given.
OFF_TAXONOMY = {
    "billing": "payment",
    "technical": "bug",
    "account": "login",
    "shipping": "delivery",
    "refund": "returns",
    "other": "general",
}

# What the reply says next, by the label the candidate chose: a wrong label gives a misdirected reply.
NEXT_STEPS = {
    "billing": (
        "I've passed this to our billing team, who will check your payments and reply within one business day.",
        "Our billing team is reviewing the charges on your account and will email you the outcome.",
    ),
    "technical": (
        "I've sent the details to our engineers; a workaround is to sign out, clear the app cache and try again.",
        "Our technical team is investigating and will update you as soon as they know more.",
    ),
    "account": (
        "For your security I've sent a verification link to the email on file; once you confirm it we can make "
        "the change.",
        "Our account team can help with this after we verify that you own the account.",
    ),
    "shipping": (
        "I've opened an investigation with the courier and will update you within 48 hours.",
        "I've asked our warehouse to check the order and the courier's scans, and we'll be back in touch shortly.",
    ),
    "refund": (
        "I've asked our returns team to review this; approved refunds reach your original payment method in "
        "5-10 business days.",
        "Our returns team will check the order and confirm the refund by email.",
    ),
    "other": (
        "I've forwarded your message to the right team, who will get back to you directly.",
        "I've shared this with the relevant team and someone will reply to you this week.",
    ),
}
DETAILS = {
    "billing": "If a charge was taken in error, we will reverse it and send you a corrected invoice.",
    "technical": "If you can, reply with a screenshot and your app version so we can reproduce it quickly.",
    "account": "In the meantime, please do not share your password or backup codes with anyone, including us.",
    "shipping": "If the parcel cannot be found, we will send a replacement at no cost.",
    "refund": "You'll get a confirmation email with the amount as soon as it is issued.",
    "other": "Thanks for taking the time to write to us.",
}

CANDIDATES = (
    Candidate(
        name="fast-small",
        label_error=0.15,
        ambiguous_label_error=0.5,
        off_taxonomy=0.3,
        priority_error=0.3,
        invalid_json=0.07,
        missing_field=0.07,
        invalid_kinds=("trailing_comma", "markdown_fence", "truncated", "single_quotes", "preamble"),
        base_ms=220,
        ms_per_token=2.0,
        usd_per_input_token=0.6e-6,
        usd_per_output_token=1.6e-6,
        detail=0,
    ),
    Candidate(
        name="balanced",
        label_error=0.07,
        ambiguous_label_error=0.3,
        off_taxonomy=0.0,
        priority_error=0.15,
        invalid_json=0.03,
        missing_field=0.03,
        invalid_kinds=("markdown_fence", "trailing_comma"),
        base_ms=500,
        ms_per_token=6.0,
        usd_per_input_token=6e-6,
        usd_per_output_token=10e-6,
        detail=1,
    ),
    Candidate(
        name="large-careful",
        label_error=0.02,
        ambiguous_label_error=0.1,
        off_taxonomy=0.0,
        priority_error=0.07,
        invalid_json=0.01,
        missing_field=0.0,
        invalid_kinds=("markdown_fence",),
        base_ms=1300,
        ms_per_token=14.0,
        usd_per_input_token=30e-6,
        usd_per_output_token=60e-6,
        detail=2,
    ),
)

# The triage prompt every candidate receives before the ticket, counted in input tokens.
PROMPT_TOKENS = 180


def _label(ticket: Ticket, candidate: Candidate, rng: random.Random) -> str:
    error = candidate.ambiguous_label_error if ticket.alt else candidate.label_error
    if rng.random() >= error:
        return ticket.label
    if rng.random() < candidate.off_taxonomy:
        return OFF_TAXONOMY[ticket.label]
    if ticket.alt:
        return ticket.alt
    return rng.choice([label for label in LABELS if label != ticket.label])


def _priority(ticket: Ticket, candidate: Candidate, rng: random.Random) -> str:
    if rng.random() >= candidate.priority_error:
        return ticket.priority
    if ticket.priority == "medium":
        return rng.choice(("low", "high"))
    return "medium"


def _reply(ticket: Ticket, label: str, candidate: Candidate, rng: random.Random) -> str:
    # An off-taxonomy label still reads as its nearest real team in the reply.
    team = next((key for key, value in OFF_TAXONOMY.items() if value == label), label)
    step = rng.choice(NEXT_STEPS[team])
    if candidate.detail == 0:
        return f"Thanks for reaching out about {ticket.gist}. {step.split(';')[0].rstrip('.')}."
    opening = rng.choice(("Hi, thanks for getting in touch about", "Hello, thank you for contacting us about"))
    reply = f"{opening} {ticket.gist}. {step}"
    if candidate.detail == 2:
        reply += f" {DETAILS[team]} Best regards, the support team."
    return reply


def _render(answer: dict[str, str], kind: str | None) -> str:
    """The text the candidate returned: the JSON answer, or one of the ways a model breaks it."""
    text = json.dumps(answer, ensure_ascii=False)
    if kind is None:
        return text
    if kind == "trailing_comma":
        return text[:-1] + ",}"
    if kind == "markdown_fence":
        return f"```json\n{json.dumps(answer, ensure_ascii=False, indent=2)}\n```"
    if kind == "truncated":
        return text[: max(len(text) * 2 // 3, 30)]
    if kind == "single_quotes":
        return str(answer)
    return f"Here is the triage for this ticket:\n{text}"


def _observation(ticket: Ticket, output: str, candidate: Candidate, rng: random.Random) -> dict[str, float | None]:
    # About four characters a token, as for English text with common tokenizers.
    input_tokens = PROMPT_TOKENS + (len(ticket.subject) + len(ticket.message)) // 4
    output_tokens = max(len(output) // 4, 5)
    latency = (candidate.base_ms + candidate.ms_per_token * output_tokens) * rng.lognormvariate(0.0, 0.15)
    if rng.random() < 0.03:
        latency *= 2.5  # a queueing spike at the provider
    cost = input_tokens * candidate.usd_per_input_token + output_tokens * candidate.usd_per_output_token
    return {
        "latency_ms": None if rng.random() < 0.03 else round(latency, 1),
        "cost_usd": None if rng.random() < 0.03 else round(cost, 6),
    }


def _ticket_order() -> list[Ticket]:
    """The tickets shuffled once, so the file reads like an inbox rather than grouped by label."""
    order = list(TICKETS)
    random.Random(f"{SEED}:order").shuffle(order)
    return order


def generate() -> list[dict[str, object]]:
    """Every case of every candidate, in the order written to the file."""
    tickets = _ticket_order()
    ids = [f"TCK-{4101 + index}" for index in range(len(tickets))]
    unlabelled = set(random.Random(f"{SEED}:unlabelled").sample(ids, UNLABELLED))
    records: list[dict[str, object]] = []
    for candidate in CANDIDATES:
        for case_id, ticket in zip(ids, tickets, strict=True):
            rng = random.Random(f"{SEED}:{candidate.name}:{case_id}")
            label = _label(ticket, candidate, rng)
            answer = {"label": label, "priority": _priority(ticket, candidate, rng)}
            answer["reply"] = _reply(ticket, label, candidate, rng)
            if rng.random() < candidate.missing_field:
                del answer[rng.choice(("priority", "priority", "reply"))]
            kind = rng.choice(candidate.invalid_kinds) if rng.random() < candidate.invalid_json else None
            output = _render(answer, kind)
            expected = None
            if case_id not in unlabelled:
                expected = {"label": ticket.label, "priority": ticket.priority, "fields": list(FIELDS)}
            records.append(
                {
                    "id": case_id,
                    "candidate": candidate.name,
                    "input": {"subject": ticket.subject, "message": ticket.message},
                    "output": output,
                    "expected": expected,
                    "observation": _observation(ticket, output, candidate, rng),
                }
            )
    return records


def write(path: Path = OUT_PATH) -> list[dict[str, object]]:
    """Write the cases as JSON Lines (UTF-8, one object a line) and return them."""
    records = generate()
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return records


def _summary(records: list[dict[str, object]]) -> str:
    lines = []
    for candidate in CANDIDATES:
        own = [record for record in records if record["candidate"] == candidate.name]
        right = invalid = labelled = 0
        for record in own:
            try:
                answer = json.loads(str(record["output"]))
            except ValueError:
                invalid += 1
                continue
            if isinstance(record["expected"], dict):
                labelled += 1
                right += answer.get("label") == record["expected"]["label"]
        measured = [record["observation"] for record in own]
        latencies = [m["latency_ms"] for m in measured if isinstance(m, dict) and m["latency_ms"] is not None]
        costs = [m["cost_usd"] for m in measured if isinstance(m, dict) and m["cost_usd"] is not None]
        lines.append(
            f"{candidate.name:>14}: {right}/{labelled} labels right among valid JSON, {invalid} invalid, "
            f"mean {sum(latencies) / len(latencies):.0f} ms, ${sum(costs) / len(costs):.5f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    written = write(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT_PATH)
    print(f"wrote {len(written)} cases\n{_summary(written)}")
